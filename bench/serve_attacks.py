"""neardup serve under slow and hostile clients: what bench/serve-attacks.sh runs.

Three phases of SECONDS each (the attack twice as long, so that it outlives
--header-timeout and reaches --body-timeout): before, during, after. Each
phase runs wrk's queries (bench/serve-query.lua) and probes /healthz on a
new connection every 20 ms, as a liveness probe does. During the attack,
STALLED connections send a POST head announcing a body and no body, and
HEADS connections send half a request head; whichever the service closes
(timed out, or evicted at --max-connections) is opened again at once, so
that the numbers are held for the whole phase. The server's RSS is read
from /proc every 100 ms.

    python3 bench/serve_attacks.py URL PID BODIES_FILE [--stalled 256] [--heads 2000]
"""

import argparse
import json
import multiprocessing
import re
import resource
import select
import socket
import statistics
import subprocess
import threading
import time
import urllib.request


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Attack:
    """Holds `stalled` stalled bodies and `heads` unfinished heads open."""

    def __init__(self, host, port, stalled, heads):
        self.address = (host, port)
        self.wanted = {"stalled": stalled, "heads": heads}
        self.open = {"stalled": [], "heads": []}
        self.reopened = 0
        self.failed = 0
        # In a process of its own, so that the probes' times are not the
        # attacker's turns at Python's lock.
        self.stop = multiprocessing.Event()
        self.counts = multiprocessing.Array("q", 3)

    def _one(self, kind):
        s = socket.create_connection(self.address, timeout=5)
        if kind == "stalled":
            s.sendall(b"POST /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"te")
        else:
            s.sendall(b"GET /v1/stats HTTP/1.1\r\nHo")
        s.setblocking(False)
        return s

    def _fill(self):
        for kind, want in self.wanted.items():
            sockets = self.open[kind]
            while len(sockets) < want and not self.stop.is_set():
                try:
                    sockets.append(self._one(kind))
                except OSError:
                    self.failed += 1
                    time.sleep(0.01)
                    break

    def _reap(self):
        """Drops the sockets the server closed (or answered)."""
        for kind, sockets in self.open.items():
            if not sockets:
                continue
            for s in self._closed(sockets):
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                s.close()
                sockets.remove(s)
                self.reopened += 1

    @staticmethod
    def _closed(sockets):
        """The sockets with something to read: an answer, or the end."""
        poller = select.poll()
        by_fd = {s.fileno(): s for s in sockets}
        for fd in by_fd:
            poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        return [by_fd[fd] for fd, _ in poller.poll(0)]

    def run(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        while not self.stop.is_set():
            self._fill()
            self._reap()
            self.counts[:] = [len(self.open["stalled"]), len(self.open["heads"]), self.reopened]
            time.sleep(0.1)
        for sockets in self.open.values():
            for s in sockets:
                s.close()

    def held(self):
        return {"stalled": self.counts[0], "heads": self.counts[1]}


def probe(url, stop, times, failures):
    while not stop.is_set():
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=5) as r:
                r.read()
                if r.status != 200:
                    failures.append(r.status)
                else:
                    times.append(time.perf_counter() - started)
        except Exception as e:  # a refused or timed-out probe counts as failed
            failures.append(repr(e))
        time.sleep(0.02)


def watch_rss(pid, stop, samples):
    while not stop.is_set():
        samples.append(rss_mb(pid))
        time.sleep(0.1)


def wrk(url, bodies, seconds):
    out = subprocess.run(
        ["wrk", "-t1", "-c16", f"-d{seconds}s", "--latency", "-s", "bench/serve-query.lua", url],
        env={"BODIES": bodies, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    ).stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {
        "queries_per_second": float(rps.group(1)) if rps else 0.0,
        "non_2xx": int(non2xx.group(1)) if non2xx else 0,
        "socket_errors": errors.group(1) if errors else "",
    }


def phase(name, url, pid, bodies, seconds, attack=None):
    stop = threading.Event()
    times, failures, rss = [], [], []
    threads = [
        threading.Thread(target=probe, args=(url, stop, times, failures)),
        threading.Thread(target=watch_rss, args=(pid, stop, rss)),
    ]
    for t in threads:
        t.start()
    held = []
    if attack:
        # Held for the whole phase: wrk runs once the attack is in place
        # (past --max-connections the service closes some as fast as they
        # come, so ten seconds at most).
        ready_by = time.time() + 10
        while sum(attack.held().values()) < sum(attack.wanted.values()) * 0.95 and time.time() < ready_by:
            time.sleep(0.1)
    load = wrk(url, bodies, seconds)
    if attack:
        held.append(attack.held())
    stop.set()
    for t in threads:
        t.join()
    times.sort()
    row = {
        "phase": name,
        "seconds": seconds,
        **load,
        "healthz_probes": len(times),
        "healthz_failed": len(failures),
        "healthz_p50_ms": round(statistics.median(times) * 1000, 2) if times else None,
        "healthz_p99_ms": round(times[int(len(times) * 0.99) - 1] * 1000, 2) if times else None,
        "healthz_max_ms": round(times[-1] * 1000, 2) if times else None,
        "rss_max_mb": round(max(rss), 1) if rss else None,
    }
    if attack:
        row["held_at_end"] = held[-1]
        row["reopened"] = attack.counts[2]
    if failures:
        row["failures"] = failures[:5]
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("pid", type=int)
    parser.add_argument("bodies")
    parser.add_argument("--stalled", type=int, default=256)
    parser.add_argument("--heads", type=int, default=2000)
    parser.add_argument("--seconds", type=int, default=15)
    args = parser.parse_args()
    host, port = args.url.removeprefix("http://").split(":")
    rows = [phase("before", args.url, args.pid, args.bodies, args.seconds)]
    attack = Attack(host, int(port), args.stalled, args.heads)
    attacker = multiprocessing.Process(target=attack.run)
    attacker.start()
    rows.append(phase("during", args.url, args.pid, args.bodies, args.seconds * 3, attack))
    attack.stop.set()
    attacker.join()
    time.sleep(1)
    rows.append(phase("after", args.url, args.pid, args.bodies, args.seconds))
    for row in rows:
        row.update({"stalled": args.stalled, "heads": args.heads})
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
