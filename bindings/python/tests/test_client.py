"""neardup.Client against the real `neardup serve` (the command the CLI
tests use), on a free loopback port."""

import signal
import subprocess

import pytest

import neardup
from conftest import cli_path

PAGE = "the river rose in the night and the town woke to water in every street and square"


def start(store, *extra):
    server = subprocess.Popen(
        [str(cli_path()), "serve", "--index", str(store), "--listen", "127.0.0.1:0", *extra],
        stderr=subprocess.PIPE,
        text=True,
    )
    line = server.stderr.readline()
    assert "on http://" in line, line
    return server, line.split("on ")[-1].strip()


def stop(server):
    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=30) == 0, server.stderr.read()


def test_a_crawler_session(tmp_path):
    server, url = start(tmp_path / "store", "--store-text", "--threshold", "0.8")
    try:
        with neardup.Client(url) as client:
            assert client.ready()
            first = client.insert_if_unique(PAGE, id="https://example.org/a", metadata={"lang": "en"})
            assert first["inserted"] and first["duplicates"] == []
            again = client.insert_if_unique(PAGE + "!", id="https://example.org/b")
            assert not again["inserted"]
            assert again["duplicates"][0]["id"] == "https://example.org/a"
            assert again["duplicates"][0]["similarity"] >= 0.8
            assert client.query(PAGE)["duplicates"][0]["distance"] == 0
            # Ids with slashes travel percent-encoded.
            stored = client.get("https://example.org/a")
            assert stored["text"] == PAGE and stored["metadata"] == {"lang": "en"}
            assert client.get("https://example.org/b") is None
            results = client.batch([{"text": "bread and salt"}, {"text": PAGE, "mode": "query"}], mode="insert")
            assert results[0]["inserted"] and results[1]["duplicates"]
            with pytest.raises(neardup.ServiceError) as taken:
                client.insert("another page", id="https://example.org/a")
            assert (taken.value.status, taken.value.code) == (409, "id_taken")
            with pytest.raises(neardup.ServiceError) as bad:
                client.insert(fingerprint="not hex")
            assert bad.value.status == 400 and "fingerprint" in bad.value.message
            assert client.delete("https://example.org/a") is True
            assert client.delete("https://example.org/a") is False
            assert client.stats()["documents"] == 1
    finally:
        stop(server)


def test_the_token_is_required_when_set(tmp_path):
    token = tmp_path / "token"
    token.write_text("a-secret-of-16-chars\n")
    token.chmod(0o600)  # one others may read would start with a warning line
    server, url = start(tmp_path / "store", "--token-file", str(token))
    try:
        with pytest.raises(neardup.ServiceError) as refused:
            neardup.Client(url).stats()
        assert (refused.value.status, refused.value.code) == (401, "unauthorized")
        with pytest.raises(neardup.ServiceError):
            neardup.Client(url, token="a-secret-of-16-char").insert("x")
        client = neardup.Client(url, token="a-secret-of-16-chars")
        assert client.insert("a text")["inserted"]
        assert client.stats()["documents"] == 1
        with pytest.raises(ValueError):
            neardup.Client("localhost:8077")
    finally:
        stop(server)
