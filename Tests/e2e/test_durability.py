"""A push that got 200 survives the server being killed (SIGKILL) mid-run; nothing is half-written."""
import json
import pathlib
import threading
import time

import httpx

from conftest import KEY_ID, TEAM_ID, TOPIC, Server, read_center, register_device, register_key
from jwt_tokens import token


def test_acknowledged_pushes_survive_sigkill(workdir, keys, tmp_path):
    server = Server(str(tmp_path), tls=False)
    register_key(server, keys[2])
    device = register_device(server)
    jwt = token(keys[1], KEY_ID, TEAM_ID)
    acknowledged, refused_or_lost = [], []
    stop = threading.Event()

    def deliver(worker):
        with httpx.Client(http1=False, http2=True, timeout=5) as client:
            number = 0
            while not stop.is_set():
                identifier = f"w{worker}-{number}"
                number += 1
                body = json.dumps({"aps": {"alert": {"title": f"worker {worker}", "body": identifier}, "thread-id": f"t{worker}"}})
                try:
                    response = client.post(f"{server.url}/3/device/{device['token']}", content=body, headers={
                        "authorization": f"bearer {jwt}", "apns-topic": TOPIC, "apns-collapse-id": identifier})
                except httpx.HTTPError:
                    refused_or_lost.append(identifier)
                    return
                (acknowledged if response.status_code == 200 else refused_or_lost).append(identifier)

    workers = [threading.Thread(target=deliver, args=(worker,)) for worker in range(4)]
    for thread in workers:
        thread.start()
    deadline = time.time() + 20
    while len(acknowledged) < 300 and time.time() < deadline:
        time.sleep(0.05)
    server.stop(signal_kill=True)
    stop.set()
    for thread in workers:
        thread.join(timeout=10)
    assert len(acknowledged) >= 300, f"only {len(acknowledged)} pushes were acknowledged before the kill"

    server.start()
    try:
        center = read_center(server, device)
        stored = {notification["id"]: notification for group in center["groups"] for notification in group["notifications"]}
        missing = [identifier for identifier in acknowledged if identifier not in stored]
        assert not missing, f"{len(missing)} acknowledged pushes were lost, e.g. {missing[:5]}"
        # Every stored notification is whole: its body is the identifier it was sent with.
        assert all(notification["body"] == identifier for identifier, notification in stored.items())
        # Anything stored beyond the acknowledged ones is a push whose answer the kill cut off.
        assert set(stored) - set(acknowledged) <= set(refused_or_lost)
    finally:
        server.stop()
