"""SDKs whose hosts are fixed (issue 55): the Node, Java and .NET Admin SDKs send to fcm.googleapis.com whatever one
sets. What they need is a name that resolves to Huddle and a certificate they trust: `huddle certs server` issues one for
Apple's and Google's host names from the local authority. Tested with Google's Python SDK left entirely as it is: its
key file is Google's shape (token_uri https://oauth2.googleapis.com/token), no URL of it is changed; only name
resolution (in its own process, as an /etc/hosts line or compose's extra_hosts would) and the trusted authority change.
"""
import json
import os
import subprocess
import sys
import textwrap

import httpx

from conftest import ADMIN_TOKEN, HUDDLE, Server

UNPATCHED_SEND = textwrap.dedent("""
    import socket, sys
    port, key_file, fid = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    resolve = socket.getaddrinfo
    def to_huddle(host, service, *rest, **named):
        # What an /etc/hosts line does for Google's hosts (and the port Huddle listens on instead of 443).
        if host in ("fcm.googleapis.com", "oauth2.googleapis.com"):
            return resolve("127.0.0.1", port, *rest, **named)
        return resolve(host, service, *rest, **named)
    socket.getaddrinfo = to_huddle
    import firebase_admin
    from firebase_admin import credentials, messaging
    app = firebase_admin.initialize_app(credentials.Certificate(key_file))
    print(messaging.send(messaging.Message(fid=fid, notification=messaging.Notification(title="Unpatched", body="by name"))))
""")


def test_the_admin_sdk_unchanged_reaches_huddle_by_googles_name_and_a_trusted_authority(tmp_path):
    authority = tmp_path / "ca"
    subprocess.run([str(HUDDLE), "certs", "ca", "--directory", str(authority)], check=True, capture_output=True)
    made = subprocess.run([str(HUDDLE), "certs", "server", "--ca-directory", str(authority), "--out", str(tmp_path / "server")],
                          check=True, capture_output=True, text=True)
    assert "fcm.googleapis.com" in made.stdout and "api.push.apple.com" in made.stdout
    server = Server(str(tmp_path), tls=False, extra=("--tls-certificate", str(tmp_path / "server.pem"), "--tls-key", str(tmp_path / "server-key.pem")))
    try:
        url = f"https://localhost:{server.port}"
        ca = str(authority / "ca.pem")
        key_file = tmp_path / "service-account.json"
        subprocess.run([str(HUDDLE), "fcm", "service-account", "--project", "fixed-hosts", "--server", url, "--admin-token", ADMIN_TOKEN,
                        "--ca-certificate", ca, "--token-uri", "https://oauth2.googleapis.com/token", "--output", str(key_file)],
                       check=True, capture_output=True)
        assert json.loads(key_file.read_text())["token_uri"] == "https://oauth2.googleapis.com/token"
        with httpx.Client(base_url=url, verify=ca) as client:
            device = client.post("/v1/devices", json={"name": "Pixel", "platform": "android", "androidVersion": 15}).json()
            auth = {"authorization": f"Bearer {device['secret']}"}
            app = client.put(f"/v1/devices/{device['token']}/apps/com.example.android.chat", headers=auth,
                             json={"channels": [{"id": "default", "name": "Default", "importance": "high"}], "defaultChannel": "default"}).json()
            environment = dict(os.environ, REQUESTS_CA_BUNDLE=ca, SSL_CERT_FILE=ca)
            sent = subprocess.run([sys.executable, "-c", UNPATCHED_SEND, str(server.port), str(key_file), app["fid"]], env=environment,
                                  capture_output=True, text=True, timeout=60)
            assert sent.returncode == 0, sent.stderr
            assert sent.stdout.startswith("projects/fixed-hosts/messages/")
            shade = client.get(f"/v1/devices/{device['token']}/center", headers=auth).json()
            assert [entry["title"] for entry in shade["entries"]] == ["Unpatched"]
            # Without the authority trusted, the SDK refuses Huddle's certificate: trust is the one thing that changes.
            untrusted = subprocess.run([sys.executable, "-c", UNPATCHED_SEND, str(server.port), str(key_file), app["fid"]],
                                       env={key: value for key, value in os.environ.items() if key not in ("REQUESTS_CA_BUNDLE", "SSL_CERT_FILE")},
                                       capture_output=True, text=True, timeout=60)
            assert untrusted.returncode != 0 and "CERTIFICATE_VERIFY_FAILED" in untrusted.stderr
    finally:
        server.stop()
