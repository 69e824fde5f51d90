"""Requests that change one device at once, against a real `huddle serve` on SQLite and on PostgreSQL: every
change that was acknowledged is there after a restart, and no limit is passed by racing requests (issue 27).
Each request is sent from its own thread; a barrier lets them go together."""
import threading

import httpx

from conftest import TOPIC, Server, register_device


def at_once(count, send):
    """Runs send(index) on `count` threads released together; their results, in index order."""
    barrier = threading.Barrier(count)
    results = [None] * count

    def run(index):
        barrier.wait()
        results[index] = send(index)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def device_with_app(server):
    device = register_device(server)
    return device, {"authorization": f"Bearer {device['secret']}"}


def test_concurrent_uploads_of_different_files_all_stay(tmp_path, database):
    """24 languages uploaded at once all answer 204, and all 24 are there after a restart."""
    server = Server(str(tmp_path), tls=False, database=database)
    try:
        device, auth = device_with_app(server)
        base = f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}/localizations"
        languages = [f"l{index:02}" for index in range(24)]

        def upload(index):
            body = f'"HELLO" = "{languages[index]}";'.encode()
            return httpx.put(f"{base}/{languages[index]}.lproj/Localizable.strings", headers=auth, content=body, timeout=30).status_code

        assert at_once(len(languages), upload) == [204] * len(languages)
        server.stop()
        server.start()
        app = httpx.get(f"{server.url}/v1/devices/{device['token']}/apps", headers=auth).json()[0]
        assert app["localizations"] == [f"{language}.lproj/Localizable.strings" for language in languages]
    finally:
        server.stop()


def test_settings_and_categories_changed_at_once_both_stay(tmp_path, database):
    server = Server(str(tmp_path), tls=False, database=database)
    try:
        device, auth = device_with_app(server)
        app = f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}"
        for trial in range(10):
            grouping = ["off", "byApp"][trial % 2]
            category = f"c{trial}"
            statuses = at_once(2, lambda index: (
                httpx.patch(f"{app}/settings", headers=auth, json={"grouping": grouping}, timeout=30) if index == 0
                else httpx.put(f"{app}/categories", headers=auth, json=[{"identifier": category}], timeout=30)).status_code)
            assert statuses == [200, 200]
            stored = httpx.get(f"{server.url}/v1/devices/{device['token']}/apps", headers=auth).json()[0]
            assert (stored["settings"]["grouping"], [c["identifier"] for c in stored["categories"]]) == (grouping, [category]), trial
    finally:
        server.stop()


def test_racing_installs_and_registrations_stay_within_their_limits(tmp_path, database):
    server = Server(str(tmp_path), tls=False, database=database, extra=["--max-apps-per-device", "5", "--max-devices", "20"])
    try:
        device = httpx.post(f"{server.url}/v1/devices", json={"name": "races"}).json()
        auth = {"authorization": f"Bearer {device['secret']}"}

        def install(index):
            with httpx.Client(http1=False, http2=True, timeout=30) as client:
                return client.put(f"{server.url}/v1/devices/{device['token']}/apps/com.example.app{index}", headers=auth, json={}).status_code

        installs = at_once(30, install)
        assert sorted(installs) == [200] * 5 + [409] * 25
        assert len(httpx.get(f"{server.url}/v1/devices/{device['token']}/apps", headers=auth).json()) == 5

        registrations = at_once(30, lambda index: httpx.post(f"{server.url}/v1/devices", json={}, timeout=30).status_code)
        # One device was registered above: 19 more fit.
        assert sorted(registrations) == [201] * 19 + [503] * 11
    finally:
        server.stop()


def test_if_match_refuses_a_change_to_an_app_that_changed_meanwhile(tmp_path, database):
    """Two editors read the app; the first change goes through with the tag it read, the second (with the same,
    now stale, tag) gets 412 and stores nothing, on every route that changes an app."""
    server = Server(str(tmp_path), tls=False, database=database)
    try:
        device, auth = device_with_app(server)
        app = f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}"
        read = httpx.get(f"{server.url}/v1/devices/{device['token']}/apps", headers=auth).json()[0]["etag"]
        first = httpx.put(app, headers={**auth, "if-match": read}, json={"name": "First"})
        assert first.status_code == 200 and first.headers["etag"] != read
        assert httpx.get(f"{server.url}/v1/devices/{device['token']}/apps", headers=auth).json()[0]["etag"] == first.headers["etag"]
        stale = {**auth, "if-match": read}
        refusals = [
            httpx.put(app, headers=stale, json={"name": "Second"}),
            httpx.patch(f"{app}/settings", headers=stale, json={"grouping": "off"}),
            httpx.put(f"{app}/categories", headers=stale, json=[{"identifier": "x"}]),
            httpx.put(f"{app}/localizations/en.lproj/Localizable.strings", headers=stale, content=b'"A" = "B";'),
            httpx.put(f"{server.url}/v1/devices/{device['token']}/apps/com.example.new", headers={**auth, "if-match": "*"}, json={}),
        ]
        assert [response.status_code for response in refusals] == [412] * 5, [r.text for r in refusals]
        stored = httpx.get(f"{server.url}/v1/devices/{device['token']}/apps", headers=auth).json()
        assert [(a["topic"], a["name"], a["settings"]["grouping"], a["localizations"]) for a in stored] == [
            (TOPIC, "First", "automatic", [])]
        # Removing the app honours it too: a stale tag removes nothing, the current one removes it.
        assert httpx.delete(app, headers=stale).status_code == 412
        assert len(httpx.get(f"{server.url}/v1/devices/{device['token']}/apps", headers=auth).json()) == 1
        # A weak tag never matches (strong comparison); a list matches when any of its tags does.
        assert httpx.patch(f"{app}/settings", headers={**auth, "if-match": "W/" + first.headers["etag"]}, json={}).status_code == 412
        assert httpx.patch(f"{app}/settings", headers={**auth, "if-match": f'{read}, {first.headers["etag"]}'}, json={}).status_code == 200
        # A header that names no tag is no precondition at all: refused.
        assert httpx.patch(f"{app}/settings", headers={**auth, "if-match": ","}, json={"grouping": "off"}).status_code == 400
        # With the tag of the change it made, the first editor goes on; `*` means any installed app.
        assert httpx.patch(f"{app}/settings", headers={**auth, "if-match": first.headers["etag"]}, json={"grouping": "off"}).status_code == 200
        latest = httpx.put(f"{app}/categories", headers={**auth, "if-match": "*"}, json=[])
        assert latest.status_code == 200
        assert httpx.delete(app, headers={**auth, "if-match": latest.headers["etag"]}).status_code == 204
    finally:
        server.stop()


def test_racing_changes_with_one_tag_let_exactly_one_through(tmp_path, database):
    """Eight uploads sent at once with the tag they all read: the tag is compared in the store's transaction,
    so one is stored and seven get 412."""
    server = Server(str(tmp_path), tls=False, database=database)
    try:
        device, auth = device_with_app(server)
        tag = httpx.get(f"{server.url}/v1/devices/{device['token']}/apps", headers=auth).json()[0]["etag"]
        base = f"{server.url}/v1/devices/{device['token']}/apps/{TOPIC}/localizations"
        statuses = at_once(8, lambda index: httpx.put(
            f"{base}/l{index}.lproj/Localizable.strings", headers={**auth, "if-match": tag}, content=b'"A" = "B";', timeout=30).status_code)
        assert sorted(statuses) == [204] + [412] * 7
        stored = httpx.get(f"{server.url}/v1/devices/{device['token']}/apps", headers=auth).json()[0]["localizations"]
        assert len(stored) == 1
    finally:
        server.stop()
