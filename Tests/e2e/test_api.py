"""The device API and its OpenAPI document, against a real server."""
import re

import httpx
import yaml
from openapi_spec_validator import validate

from conftest import TOPIC, read_center, register_device

# Every controller, wherever its folder: a route added to any of them must be documented.
ROUTE_SOURCES = "Sources/HuddleServer/*/*Controller.swift"


def test_openapi_document_is_served_valid_and_complete(plain_server):
    from conftest import ROOT
    response = httpx.get(f"{plain_server.url}/openapi.yaml")
    assert response.status_code == 200
    document = yaml.safe_load(response.text)
    validate(document)
    documented = {re.sub(r"\{[^}]+\}", "{}", path) for path in document["paths"]}
    # Every route the controllers register appears in the document.
    sources = sorted(ROOT.glob(ROUTE_SOURCES))
    assert len(sources) >= 6, sources
    for source in sources:
        text = source.read_text()
        groups = dict(re.findall(r'let (\w+) = router\.group\("([^"]+)"\)', text))
        for receiver, method, path in re.findall(r'(\w+)\.(get|post|put|patch|delete)\((?:"([^"]*)", )?use:', text):
            prefix = groups.get(receiver, "")
            full = "/".join(part for part in [prefix.rstrip("/"), path] if part) if prefix else path
            full = re.sub(r":\w+", "{}", full).replace("**", "{}")
            assert full in documented, f"{method.upper()} {full} is not in docs"


def test_device_settings_are_kept_changed_by_name_and_refused_where_wrong(tmp_path):
    """Issue 43: a device's settings are an iPhone's until changed; a PATCH changes what it names, the rest stays, and
    outlives a restart; a bad value is refused naming its key path, and changes nothing."""
    from conftest import Server
    server = Server(str(tmp_path), tls=False)
    try:
        device = register_device(server)
        auth = {"authorization": f"Bearer {device['secret']}"}
        url = f"{server.url}/v1/devices/{device['token']}/settings"
        defaults = httpx.get(url, headers=auth).json()
        assert defaults == {"timeZone": "UTC", "summary": {"enabled": False, "times": ["08:00", "18:00"]},
                            "focus": {"name": "Do Not Disturb", "on": False, "allowedApps": [], "allowsTimeSensitive": True},
                            "lockScreen": "stack"}, defaults
        changed = httpx.patch(url, headers=auth, json={"timeZone": "Europe/Paris", "summary": {"enabled": True},
                                                       "focus": {"name": "Work", "schedule": {"from": "09:00", "to": "17:00"}}})
        assert changed.status_code == 200, changed.text
        settings = changed.json()
        assert settings["summary"] == {"enabled": True, "times": ["08:00", "18:00"]}
        assert settings["focus"]["schedule"] == {"from": "09:00", "to": "17:00"} and settings["lockScreen"] == "stack"
        refused = httpx.patch(url, headers=auth, json={"summary": {"times": ["25:00"]}})
        assert refused.status_code == 400 and "summary.times[0]" in refused.json()["error"], refused.text
        assert httpx.patch(url, headers={"authorization": "Bearer wrong"}, json={}).status_code in (401, 404)
        server.stop()
        server.start()
        assert httpx.get(url, headers=auth).json() == settings
    finally:
        server.stop()


def test_device_api_round_trip(plain_server):
    device = register_device(plain_server, categories=[
        {"identifier": "msg", "categorySummaryFormat": "%u more messages", "hiddenPreviewsBodyPlaceholder": "%u messages"}])
    auth = {"authorization": f"Bearer {device['secret']}"}
    base = f"{plain_server.url}/v1/devices/{device['token']}"
    with httpx.Client() as client:
        assert client.get(base, headers={"authorization": "Bearer wrong"}).status_code == 401
        for number in range(3):
            created = client.post(f"{base}/apps/{TOPIC}/notifications", headers=auth,
                                  json={"id": f"local-{number}", "content": {"title": "Local", "body": f"n{number}", "categoryIdentifier": "msg", "threadIdentifier": "t"}})
            assert created.status_code == 201, created.text
            assert created.json()["group"] == f"{TOPIC}/t"
        center = read_center(plain_server, device)
        assert center["groups"][0]["summary"] == "2 more messages"
        locked = read_center(plain_server, device, locked="true", languages="de")
        assert locked["groups"][0]["hiddenPreviewsText"] == "3 messages" and locked["languages"] == ["de"]
        limited = read_center(plain_server, device, limit=1)
        assert len(limited["groups"][0]["notifications"]) == 1 and limited["groups"][0]["count"] == 3

        removed = client.post(f"{base}/notifications/remove", headers=auth, json={"app": TOPIC, "ids": ["local-2", "nope"]})
        assert removed.json() == {"removed": ["local-2"]}
        assert read_center(plain_server, device)["groups"][0]["notifications"][0]["id"] == "local-1"

        settings = client.patch(f"{base}/apps/{TOPIC}/settings", headers=auth, json={"grouping": "off"})
        assert settings.json() == {"grouping": "off", "showPreviews": "whenAuthenticated"}
        assert len(read_center(plain_server, device)["groups"]) == 2

        bad = client.put(f"{base}/apps/{TOPIC}/categories", headers=auth, json=[{"identifier": "x", "categorySummaryFormat": "%s"}])
        assert bad.status_code == 400
        assert 'category "x": categorySummaryFormat "%s": conversion "%s" at offset 0 is not allowed' in bad.json()["error"]

        upload = client.put(f"{base}/apps/{TOPIC}/localizations/de.lproj/Localizable.strings", headers=auth,
                            content='"TITLE" = "Hallo";'.encode())
        assert upload.status_code == 204
        client.post(f"{base}/apps/{TOPIC}/notifications", headers=auth,
                    json={"id": "localized", "content": {"title": {"key": "TITLE"}, "body": "b"}})
        titles = [n["title"] for g in read_center(plain_server, device, languages="de")["groups"] for n in g["notifications"]]
        assert "Hallo" in titles
        broken = client.put(f"{base}/apps/{TOPIC}/localizations/de.lproj/Broken.strings", headers=auth, content=b'"A" = ')
        assert broken.status_code == 400 and "de.lproj/Broken.strings:1" in broken.json()["error"]

        cleared = client.delete(f"{base}/groups/{TOPIC}%23local-0", headers=auth)
        assert cleared.json() == {"removed": ["local-0"]}
        everything = client.delete(f"{base}/apps/{TOPIC}/notifications", headers=auth)
        assert sorted(everything.json()["removed"]) == ["local-1", "localized"]
        assert read_center(plain_server, device)["groups"] == []


def test_metrics_count_requests_by_reason(plain_server):
    with httpx.Client(http1=False, http2=True) as client:
        assert client.post(f"{plain_server.url}/3/device/{'ab' * 32}", content=b"{}").status_code == 400
    text = httpx.get(f"{plain_server.url}/metrics").text
    assert re.search(r'huddle_provider_requests_total\{(reason="MissingTopic",status="400"|status="400",reason="MissingTopic")\} [1-9]', text), text


def test_metrics_count_deliveries_removals_streams_and_time_the_store(plain_server):
    device = register_device(plain_server)
    auth = {"authorization": f"Bearer {device['secret']}"}
    base = f"{plain_server.url}/v1/devices/{device['token']}"

    def metric(text, name):
        return sum(float(value) for value in re.findall(rf"^{name}(?:{{[^}}]*}})? ([0-9.e+]+)$", text, re.M))

    before = httpx.get(f"{plain_server.url}/metrics").text
    with httpx.Client() as client:
        for number in range(3):
            assert client.post(f"{base}/apps/{TOPIC}/notifications", headers=auth,
                               json={"id": f"m{number}", "content": {"body": f"n{number}"}}).status_code == 201
        assert client.post(f"{base}/notifications/remove", headers=auth, json={"app": TOPIC, "ids": ["m0", "m1"]}).status_code == 200
        with client.stream("GET", f"{base}/stream", headers=auth) as response:
            next(response.iter_lines())
            during = httpx.get(f"{plain_server.url}/metrics").text
    assert metric(during, "huddle_deliveries_total") - metric(before, "huddle_deliveries_total") == 3
    assert metric(during, "huddle_removals_total") - metric(before, "huddle_removals_total") == 2
    assert metric(during, "huddle_live_streams") >= 1
    assert re.search(r'huddle_store_duration_seconds_count\{operation="commit"\} [1-9]', during), during
    assert re.search(r'huddle_store_duration_seconds_bucket\{operation="commit",le="[^"]+"\} [1-9]', during), during
    # The three deliveries and the removal went through group commit, in at most four transactions.
    writes = metric(during, "huddle_group_committed_writes_total") - metric(before, "huddle_group_committed_writes_total")
    commits = metric(during, "huddle_group_commits_total") - metric(before, "huddle_group_commits_total")
    assert writes == 4 and 1 <= commits <= 4, (writes, commits)
