"""Parsing and formatting dates in reports."""
from datetime import date, datetime, timedelta, timezone

FORMATS = ("%Y-%m-%d", "%d/%m/%Y", "%d.%m.%Y", "%Y-%m-%dT%H:%M:%S%z")


def parse_date(text: str) -> datetime:
    """Parse a date in any of the accepted formats, as UTC."""
    for fmt in FORMATS:
        try:
            dt = datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
        return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)
    raise ValueError(f"unrecognised date: {text!r}")


def week_start(d: date) -> date:
    """The Monday of the week containing d."""
    return d - timedelta(days=d.weekday())


def humanize_delta(delta: timedelta) -> str:
    """'3 days ago' style text for a time difference."""
    seconds = int(delta.total_seconds())
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"
