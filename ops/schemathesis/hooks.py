"""Schemathesis hooks for Herald's API (loaded by ops/fuzz-api through SCHEMATHESIS_HOOKS).

The device import takes NDJSON, which schemathesis cannot serialize by itself. Each generated
string becomes three lines: the string itself (a line that is not JSON, or odd JSON), a
registration whose attribute holds the string (control characters, long text, odd Unicode), and
a registration whose token is the string. Herald must answer every such body with 200 (bad
lines refused by number) or a 4xx, never a 5xx.
"""
import hashlib
import json

import schemathesis


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    text = value if isinstance(value, str) else json.dumps(value)
    token = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    lines = [
        text,
        json.dumps({"token": token, "languages": ["en"], "attributes": {"fuzz": text}}),
        json.dumps({"token": text}),
    ]
    return "\n".join(lines).encode("utf-8", "surrogatepass")
