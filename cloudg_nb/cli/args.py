"""What the ``cloudg-nb`` commands share about their arguments: ``UsageError`` (a bad command
line or setup: printed, exit status 2), the value types of numeric options, and whether a
host is a loopback address."""

from __future__ import annotations

import argparse
import ipaddress

__all__ = ["UsageError", "count", "is_loopback", "port", "seconds"]


class UsageError(Exception):
    """A problem with the command line or setup: printed, exit status 2."""


def port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a port is a number from 0 to 65535") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError("a port is a number from 0 to 65535")
    return value


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a number of seconds, such as 600 or 0.5") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError("a number of seconds, 0 or more")
    return value


def count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("a whole number, 0 or more") from None
    if value < 0:
        raise argparse.ArgumentTypeError("a whole number, 0 or more")
    return value


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
