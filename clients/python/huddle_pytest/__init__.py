"""Test helpers for Huddle, the APNs test double: a server to start (or one already running), a device with an
app and a signing key, provider tokens, and assertions that wait for what they check."""

from .client import Device, Huddle, delete_firebase_app, provider_token
from .server import HuddleServer

__all__ = ["Device", "Huddle", "HuddleServer", "delete_firebase_app", "provider_token"]
