"""Removing duplicate customer records."""
from collections import defaultdict


def normalize_name(name: str) -> str:
    return " ".join(name.lower().split())


def dedupe_customers(records):
    """Merge records that share an email or a normalized name and phone.

    The newest record wins for each field that is set.
    """
    by_key = {}
    merged = defaultdict(dict)
    for rec in sorted(records, key=lambda r: r["updated_at"]):
        keys = [("email", rec.get("email", "").lower()), ("name_phone", normalize_name(rec["name"]), rec.get("phone"))]
        target = next((by_key[k] for k in keys if k in by_key), rec["id"])
        for k in keys:
            by_key[k] = target
        merged[target].update({f: v for f, v in rec.items() if v})
    return list(merged.values())
