"""A provider's send loop that does what Apple asks of one when APNs fails (README, "Failing on purpose"):

- 200: delivered;
- 410 Unregistered: the app is gone from the device; forget the token, never retry;
- 429 TooManyRequests, 500 InternalServerError, 503 ServiceUnavailable or Shutdown: retry, waiting longer each
  time (a 503 Shutdown also ends the connection: aioapns opens a new one);
- anything else (400, 403, 413): the push itself is wrong; retrying sends the same mistake again.

Run it against a Huddle whose faults make these happen:

    python Examples/retrying_provider.py --url https://localhost:8443 --ca server.crt \\
        --key AuthKey_ABC123DEFG.p8 --key-id ABC123DEFG --team-id DEF123GHIJ --topic com.example.app TOKEN...
"""

import argparse
import asyncio
import ssl
import urllib.parse
import uuid

import aioapns
import aioapns.connection

RETRIED = {"429", "500", "503"}


async def send_with_retries(apns, token, message, attempts=5, first_wait=0.05):
    """Sends one push: "delivered", "unregistered", "refused <reason>" or "gave up", with the answers met."""
    seen = []
    for attempt in range(attempts):
        request = aioapns.NotificationRequest(device_token=token, notification_id=str(uuid.uuid4()), message=message,
                                              push_type=aioapns.PushType.ALERT)
        try:
            result = await apns.send_notification(request)
        except ConnectionError as error:
            # A connection that went away mid-request (a GOAWAY, a reset): like a 503, worth another try.
            seen.append(f"connection lost ({error.__class__.__name__})")
        else:
            seen.append(result.status if result.is_successful else f"{result.status} {result.description}")
            if result.is_successful:
                return "delivered", seen
            if result.status == "410":
                return "unregistered", seen
            if result.status not in RETRIED:
                return f"refused {result.description}", seen
        await asyncio.sleep(first_wait * 2 ** attempt)
    return "gave up", seen


def client(url, ca, key, key_id, team_id, topic):
    """aioapns aimed at a Huddle: it takes its host and port from class attributes."""
    parts = urllib.parse.urlsplit(url)
    aioapns.connection.APNsProductionClientProtocol.APNS_SERVER = parts.hostname
    aioapns.connection.APNsProductionClientProtocol.APNS_PORT = parts.port or 443
    context = ssl.create_default_context(cafile=ca) if ca else ssl.create_default_context()
    return aioapns.APNs(key=key, key_id=key_id, team_id=team_id, topic=topic, use_sandbox=False, ssl_context=context)


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--ca")
    parser.add_argument("--key", required=True, help="the .p8 signing key")
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("tokens", nargs="+")
    arguments = parser.parse_args()
    with open(arguments.key) as file:
        key = file.read()
    apns = client(arguments.url, arguments.ca, key, arguments.key_id, arguments.team_id, arguments.topic)
    for token in arguments.tokens:
        outcome, seen = await send_with_retries(apns, token, {"aps": {"alert": {"title": "Huddle", "body": "hello"}}})
        print(f"{token[:12]}… {outcome} after {', '.join(seen)}")


if __name__ == "__main__":
    asyncio.run(main())
