"""schemathesis hooks of scripts/test-api.sh: the OpenAPI document made exact
for the service under test.

The document describes every `neardup serve`: the store's k, its fingerprints'
width and whether a token is required depend on how the service was started,
so the document gives the widest bounds and says in descriptions that a
larger k or the other width is refused (400) when a request comes. Here they
are narrowed to the service under test, read from its /v1/stats, so that
positive_data_acceptance ("a request the schema allows is accepted") and
ignored_auth ("a request without the token is refused") hold it to them.
"""

import json
import os
import urllib.request

import schemathesis


@schemathesis.hook
def before_load_schema(context, raw_schema):
    url = os.environ["NEARDUP_API_URL"]
    token = os.environ.get("NEARDUP_API_TOKEN", "")
    request = urllib.request.Request(f"{url}/v1/stats")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as answer:
        stats = json.load(answer)
    schemas = raw_schema["components"]["schemas"]
    schemas["K"]["maximum"] = stats["k"]
    digits = stats["width"] // 4
    fingerprint = schemas["DocumentIn"]["properties"]["fingerprint"]
    fingerprint["pattern"] = f"^(0x)?[0-9A-Fa-f]{{{digits}}}$"
    if token:
        # Not optional: this service was started with --token-file.
        raw_schema["security"] = [{"bearer": []}]
