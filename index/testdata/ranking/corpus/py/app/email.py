"""Sending notification emails over SMTP."""
import re
import smtplib
from email.message import EmailMessage

EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[a-zA-Z]{2,}$")


def is_valid_email(address: str) -> bool:
    """Check that an email address looks deliverable."""
    return bool(EMAIL_RE.match(address.strip()))


def send_email(host: str, sender: str, to: str, subject: str, body: str) -> None:
    """Send a plain-text email through an SMTP relay with STARTTLS."""
    if not is_valid_email(to):
        raise ValueError(f"invalid recipient: {to}")
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, subject
    msg.set_content(body)
    with smtplib.SMTP(host, 587) as smtp:
        smtp.starttls()
        smtp.send_message(msg)
