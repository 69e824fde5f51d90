"""Provider tokens (ES256 JWTs) for tests, signed with `cryptography`, as APNs clients make them."""
import base64
import json
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(p8_pem, key_id, team_id, issued_at=None, iat_kind="int", alg="ES256"):
    key = serialization.load_pem_private_key(p8_pem.encode(), password=None)
    issued_at = int(time.time()) if issued_at is None else issued_at
    iat = {"int": int(issued_at), "float": float(issued_at) + 0.25, "string": str(int(issued_at))}[iat_kind]
    header = b64(json.dumps({"alg": alg, "kid": key_id, "typ": "JWT"}).encode())
    claims = b64(json.dumps({"iss": team_id, "iat": iat}).encode())
    der = key.sign(f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    return f"{header}.{claims}.{b64(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"
