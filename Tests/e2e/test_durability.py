"""A push that got 200 survives the server being killed (SIGKILL) mid-run, on SQLite and on PostgreSQL, with
group commit storing many pushes per transaction; nothing is half-written."""
import json
import re
import threading
import time

import httpx

from conftest import KEY_ID, TEAM_ID, TOPIC, Server, read_center, register_device, register_key
from jwt_tokens import token


def metric(text, name):
    return sum(float(value) for value in re.findall(rf"^{name}(?:{{[^}}]*}})? ([0-9.e+]+)$", text, re.M))


def test_acknowledged_pushes_survive_sigkill(workdir, keys, tmp_path, database):
    """Eight clients push at once to two devices, so group commit stores many pushes per transaction; the
    server is killed mid-run; after a restart every push answered 200 is there, whole."""
    server = Server(str(tmp_path), tls=False, database=database)
    register_key(server, keys[2])
    devices = [register_device(server), register_device(server)]
    jwt = token(keys[1], KEY_ID, TEAM_ID)
    acknowledged, refused_or_lost = [], []
    stop = threading.Event()

    def deliver(worker):
        device = devices[worker % len(devices)]
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
                    refused_or_lost.append((device["token"], identifier))
                    return
                (acknowledged if response.status_code == 200 else refused_or_lost).append((device["token"], identifier))

    workers = [threading.Thread(target=deliver, args=(worker,)) for worker in range(8)]
    for thread in workers:
        thread.start()
    deadline = time.time() + 30
    while len(acknowledged) < 600 and time.time() < deadline:
        time.sleep(0.05)
    metrics = httpx.get(f"{server.url}/metrics").text
    server.stop(signal_kill=True)
    stop.set()
    for thread in workers:
        thread.join(timeout=10)
    assert len(acknowledged) >= 600, f"only {len(acknowledged)} pushes were acknowledged before the kill"
    # Pushes shared transactions: fewer commits than writes.
    writes, commits = metric(metrics, "huddle_group_committed_writes_total"), metric(metrics, "huddle_group_commits_total")
    assert writes > commits > 0, (writes, commits)

    server.start()
    try:
        for device in devices:
            center = read_center(server, device)
            stored = {notification["id"]: notification for group in center["groups"] for notification in group["notifications"]}
            sent = [identifier for token, identifier in acknowledged if token == device["token"]]
            missing = [identifier for identifier in sent if identifier not in stored]
            assert not missing, f"{len(missing)} acknowledged pushes were lost, e.g. {missing[:5]}"
            # Every stored notification is whole: its body is the identifier it was sent with.
            assert all(notification["body"] == identifier for identifier, notification in stored.items())
            # Anything stored beyond the acknowledged ones is a push whose answer the kill cut off.
            cut_off = {identifier for token, identifier in refused_or_lost if token == device["token"]}
            assert set(stored) - set(sent) <= cut_off
    finally:
        server.stop()
