#!/usr/bin/env python3
"""Reads an iCalendar file the gateway wrote and prints every occurrence as JSON.

Used by CalendarInteropTests: an independent library (icalendar + recurring-ical-events)
parses the document and expands the recurrence rules, exception and extra dates, so the
Swift test can compare what a calendar client would show with the dates it expects.

    ics_check.py FILE.ics

Prints {"problems": [...], "occurrences": [...]} where each occurrence has the event's UID,
SUMMARY, local start and end (ISO 8601 without an offset, or a date for all-day events),
the start in UTC by the system zone database ("utcStart") and by the VTIMEZONE of the file
itself ("vtimezoneUtcStart"). "problems" lists framing faults: a line not ended by CRLF or
longer than 75 octets. Exits 2 when the file cannot be read or parsed.
"""
import datetime
import json
import sys

import icalendar
import recurring_ical_events


def framing_problems(data: bytes) -> list[str]:
    problems = []
    if not data.endswith(b"\r\n"):
        problems.append("the document does not end with CRLF")
    for number, line in enumerate(data.split(b"\r\n")[:-1], start=1):
        if b"\n" in line or b"\r" in line:
            problems.append(f"line {number}: a bare CR or LF")
        if len(line) > 75:
            problems.append(f"line {number}: {len(line)} octets")
        if number > 1 and line == b"":
            problems.append(f"line {number}: empty")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        problems.append(f"not UTF-8: {error}")
    return problems


def utc(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: ics_check.py FILE.ics", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], "rb") as handle:
            data = handle.read()
        calendar = icalendar.Calendar.from_ical(data)
    except Exception as error:  # noqa: BLE001 - any failure is the test's answer
        print(f"cannot read {sys.argv[1]}: {error}", file=sys.stderr)
        return 2

    problems = framing_problems(data)
    # Time zones as the file defines them, not as the system database knows the TZID.
    zones = {str(zone["TZID"]): zone.to_tz(lookup_tzid=False) for zone in calendar.walk("VTIMEZONE")}
    occurrences = []
    window = (datetime.date(1970, 1, 1), datetime.date(2200, 1, 1))
    for event in recurring_ical_events.of(calendar).between(*window):
        start, end = event["DTSTART"].dt, event["DTEND"].dt
        item = {"uid": str(event["UID"]), "summary": str(event.get("SUMMARY", ""))}
        if isinstance(start, datetime.datetime):
            item["allDay"] = False
            item["start"] = start.replace(tzinfo=None).isoformat()
            item["end"] = end.replace(tzinfo=None).isoformat()
            item["utcStart"] = utc(start)
            tzid = event["DTSTART"].params.get("TZID")
            if tzid not in zones:
                problems.append(f"{item['uid']}: TZID {tzid!r} has no VTIMEZONE")
            else:
                item["vtimezoneUtcStart"] = utc(start.replace(tzinfo=zones[tzid]))
        else:
            item["allDay"] = True
            item["start"] = start.isoformat()
            item["end"] = end.isoformat()
        occurrences.append(item)
    occurrences.sort(key=lambda item: (item["uid"], item["start"]))
    json.dump({"problems": problems, "occurrences": occurrences}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
