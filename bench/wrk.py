#!/usr/bin/env python3
"""Streamable HTTP `tools/call` measured from outside (issue 28's figures).

    bench/wrk.py run --server NAME:REV:BINARY ... [--rounds 3] [--duration 10] [--conc 1,32]
                     [--ratio-to NAME ...] [--warmup 2]
    bench/wrk.py count --url URL --rev REV --calls N [--conc C]
    bench/wrk.py count --url URL --mrtr --calls N

`run`: each server (REV `2025` sends 2025-11-25 traffic, `2026` sends 2026-07-28 traffic with its
`_meta` and `Mcp-Method`/`Mcp-Name` headers) is started fresh per round and concurrency level on
CPU 0 (`taskset -c 0`), its answer to the call is read once and verified (status 200, the id,
the sum, `isError` false; at 2026-07-28 `resultType: complete`), then wrk (`taskset -c 1`, one
thread, C keep-alive connections) sends that call for `--warmup` seconds unmeasured and
`--duration` seconds measured, its Lua script (bench/wrk/check.lua) checking every answer
against the verified one byte for byte. The server's CPU time is read from
/proc/PID/task/*/schedstat around the measured run. Servers are alternated: each round starts
one server further on. The 1-minute load average is read before and after each measurement.
A wrong answer or a connection error fails the run.

`count`: sends exactly N calls over C keep-alive connections (closed loop, every answer checked
the same way) and exits: the fixed load for counting a server's instructions under callgrind.
With `--mrtr` (2026-07-28, one connection), each call is a multi-round-trip one: a `tools/call`
of `add_confirmed(1, 2)` (the claude-tools bench server's tool that asks the client to confirm)
answered `input_required` with the question `confirm` and a sealed `requestState`, then the
retry with the answer and the state, answered with the sum: two requests per call, both checked.
"""

import argparse
import json
import os
import selectors
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
LUA = os.path.join(HERE, "wrk", "check.lua")
A, B = 1, 2

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def call(rev, call_id=1, tool="add", capabilities=None, retry=None):
    """The body and headers of the bench's `tools/call` of `tool(1, 2)` at revision `rev`
    (`retry`: the params of an MRTR retry, `inputResponses` and `requestState`)."""
    params = {"name": tool, "arguments": {"a": A, "b": B}}
    if retry:
        params.update(retry)
    headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ]
    if rev == "2026":
        params["_meta"] = dict(META)
        if capabilities:
            params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities
        headers += [
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", tool),
        ]
    elif rev == "2025":
        headers.append(("MCP-Protocol-Version", "2025-11-25"))
    else:
        raise SystemExit(f"unknown revision {rev!r} (2025 or 2026)")
    body = {"jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": params}
    return json.dumps(body, separators=(",", ":")).encode(), headers


def verify(rev, status, body):
    """Raises unless `body` is the right answer to `call(rev)`."""
    if status != 200:
        raise SystemExit(f"reference call: status {status}: {body!r}")
    reply = json.loads(body)
    result = reply.get("result") or {}
    text = (result.get("content") or [{}])[0].get("text")
    ok = (
        reply.get("id") == 1
        and "error" not in reply
        and result.get("isError") is False
        and text == str(A + B)
        and (rev != "2026" or result.get("resultType") == "complete")
    )
    if not ok:
        raise SystemExit(f"reference call at {rev}: a wrong answer: {body!r}")


def raw_request(url, rev, call_id=1, **kwargs):
    parts = urllib.parse.urlsplit(url)
    body, headers = call(rev, call_id, **kwargs)
    head = [f"POST {parts.path} HTTP/1.1", f"Host: {parts.netloc}"]
    head += [f"{k}: {v}" for k, v in headers]
    head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body, (parts.hostname, parts.port)


class Conn:
    """One keep-alive connection reading `Content-Length` answers."""

    def __init__(self, addr):
        self.sock = socket.create_connection(addr)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def answer(self):
        """A whole response parsed from the buffer, or None."""
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = self.buf[:end].decode("latin-1").split("\r\n")
        status = int(head[0].split(" ")[1])
        length = None
        for line in head[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if length is None:
            raise SystemExit(f"an answer without Content-Length: {head}")
        if len(self.buf) < end + 4 + length:
            return None
        body = self.buf[end + 4 : end + 4 + length]
        self.buf = self.buf[end + 4 + length :]
        return status, body

    def read_answer(self):
        while True:
            got = self.answer()
            if got:
                return got
            chunk = self.sock.recv(65536)
            if not chunk:
                raise SystemExit("the server closed the connection")
            self.buf += chunk


def reference(url, rev):
    """The server's verified answer to the call."""
    request, addr = raw_request(url, rev)
    conn = Conn(addr)
    conn.sock.sendall(request)
    status, body = conn.read_answer()
    conn.sock.close()
    verify(rev, status, body)
    return body


def count(url, rev, calls, conc):
    """Exactly `calls` calls over `conc` connections, every answer checked."""
    expect = reference(url, rev)
    request, addr = raw_request(url, rev)
    sel = selectors.DefaultSelector()
    sent = done = 0
    conns = [Conn(addr) for _ in range(min(conc, calls))]
    for conn in conns:
        conn.sock.sendall(request)
        sent += 1
        sel.register(conn.sock, selectors.EVENT_READ, conn)
    while done < calls:
        for key, _ in sel.select():
            conn = key.data
            chunk = conn.sock.recv(65536)
            if not chunk:
                raise SystemExit("the server closed a connection")
            conn.buf += chunk
            while (got := conn.answer()) is not None:
                status, body = got
                if status != 200 or body != expect:
                    raise SystemExit(f"call {done}: a wrong answer: {status} {body!r}")
                done += 1
                if sent < calls:
                    conn.sock.sendall(request)
                    sent += 1
    print(f"checked={done} wrong=0")


def count_mrtr(url, calls):
    """Exactly `calls` MRTR round trips on one connection, both answers of each checked."""
    _, addr = raw_request(url, "2026")
    conn = Conn(addr)
    ask = dict(tool="add_confirmed", capabilities={"elicitation": {}})
    first, _ = raw_request(url, "2026", **ask)
    for done in range(calls):
        conn.sock.sendall(first)
        status, body = conn.read_answer()
        result = json.loads(body).get("result") or {}
        state = result.get("requestState")
        if (status != 200 or result.get("resultType") != "input_required"
                or "confirm" not in (result.get("inputRequests") or {}) or not state):
            raise SystemExit(f"round trip {done}: not an input_required answer: {status} {body!r}")
        retry = {"inputResponses": {"confirm": {"action": "accept", "content": {"ok": True}}},
                 "requestState": state}
        second, _ = raw_request(url, "2026", retry=retry, **ask)
        conn.sock.sendall(second)
        status, body = conn.read_answer()
        reply = json.loads(body)
        result = reply.get("result") or {}
        text = (result.get("content") or [{}])[0].get("text")
        if status != 200 or result.get("resultType") != "complete" or text != str(A + B):
            raise SystemExit(f"round trip {done}: a wrong final answer: {status} {body!r}")
    print(f"checked={2 * calls} wrong=0")


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def cpu_ns(pid):
    """The process's CPU time so far (every thread's), from schedstat."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def start(binary):
    proc = subprocess.Popen(
        ["taskset", "-c", "0", binary], stdout=subprocess.PIPE, text=True
    )
    url = proc.stdout.readline().strip()
    if not url.startswith("http://"):
        proc.kill()
        raise SystemExit(f"{binary}: no URL on its first line: {url!r}")
    return proc, url


def wrk(url, rev, expect, conc, seconds):
    body, headers = call(rev)
    env = dict(
        os.environ,
        WRK_BODY=body.decode(),
        WRK_EXPECT=expect.decode(),
        WRK_HEADERS="\n".join(f"{k}: {v}" for k, v in headers),
    )
    out = subprocess.run(
        ["taskset", "-c", "1", "wrk", "-t1", f"-c{conc}", f"-d{seconds}s", "-s", LUA, url],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    requests = checked = None
    for line in out.splitlines():
        words = line.split()
        if "requests in" in line:
            requests = int(words[0])
        if line.startswith("checked="):
            fields = dict(w.split("=") for w in words)
            checked = int(fields["checked"])
            errors = {k: int(v) for k, v in fields.items() if k != "checked"}
            if any(errors.values()):
                raise SystemExit(f"{url}: wrong answers or socket errors: {line}\n{out}")
    if requests is None or checked is None:
        raise SystemExit(f"wrk's output not understood:\n{out}")
    return requests, checked


def run(args):
    servers = []
    for spec in args.server:
        name, rev, binary = spec.split(":", 2)
        servers.append((name, rev, binary))
    conc_levels = [int(c) for c in args.conc.split(",")]
    rows = []  # (round, conc, name, req/s, cpu µs/req, load before, load after)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.uname().release}; "
          f"wrk -t1, server on CPU 0, wrk on CPU 1; {args.rounds} rounds of {args.duration} s "
          f"after {args.warmup} s of warm-up", flush=True)
    for rnd in range(args.rounds):
        order = servers[rnd % len(servers):] + servers[: rnd % len(servers)]
        for conc in conc_levels:
            for name, rev, binary in order:
                proc, url = start(binary)
                try:
                    expect = reference(url, rev)
                    if args.warmup:
                        wrk(url, rev, expect, conc, args.warmup)
                    before_load, before_cpu = load(), cpu_ns(proc.pid)
                    requests, checked = wrk(url, rev, expect, conc, args.duration)
                    cpu = cpu_ns(proc.pid) - before_cpu
                    after_load = load()
                finally:
                    proc.kill()
                    proc.wait()
                rps = requests / args.duration
                row = (rnd, conc, name, rps, cpu / 1000 / requests, before_load, after_load)
                rows.append(row)
                print(f"round {rnd + 1} C={conc} {name} ({rev}): {rps:,.0f} req/s, "
                      f"{row[4]:.2f} µs CPU/req, {checked:,} answers checked; "
                      f"load {before_load:.2f} -> {after_load:.2f}", flush=True)
    print()
    print("| C | server | req/s (median) | server CPU µs/req (median) | load avg (min–max) |")
    print("|---:|---|---:|---:|---|")
    for conc in conc_levels:
        for name, _, _ in servers:
            mine = [r for r in rows if r[1] == conc and r[2] == name]
            loads = [r[5] for r in mine] + [r[6] for r in mine]
            print(f"| {conc} | {name} | {statistics.median(r[3] for r in mine):,.0f} | "
                  f"{statistics.median(r[4] for r in mine):.2f} | "
                  f"{min(loads):.2f}–{max(loads):.2f} |")
    for base in args.ratio_to:
        print()
        print(f"In-round ratios to {base} (median, then each round):")
        print()
        print("| C | server | req/s | server CPU per req |")
        print("|---:|---|---|---|")
        for conc in conc_levels:
            for name, _, _ in servers:
                if name == base:
                    continue
                rps, cpu = [], []
                for rnd in range(args.rounds):
                    mine = [r for r in rows if r[0] == rnd and r[1] == conc and r[2] == name]
                    theirs = [r for r in rows if r[0] == rnd and r[1] == conc and r[2] == base]
                    if mine and theirs:
                        rps.append(mine[0][3] / theirs[0][3])
                        cpu.append(mine[0][4] / theirs[0][4])
                print(f"| {conc} | {name} | {statistics.median(rps):.2f}× "
                      f"({' / '.join(f'{x:.2f}' for x in rps)}) | "
                      f"{statistics.median(cpu):.2f}× ({' / '.join(f'{x:.2f}' for x in cpu)}) |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--server", action="append", required=True, help="NAME:REV:BINARY")
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("--duration", type=int, default=10)
    r.add_argument("--warmup", type=int, default=2)
    r.add_argument("--conc", default="1,32")
    r.add_argument("--ratio-to", action="append", default=[])
    c = sub.add_parser("count")
    c.add_argument("--url", required=True)
    c.add_argument("--rev", default="2025")
    c.add_argument("--calls", type=int, required=True)
    c.add_argument("--conc", type=int, default=1)
    c.add_argument("--mrtr", action="store_true")
    args = parser.parse_args()
    if args.command == "run":
        subprocess.run([os.path.join(HERE, "install-wrk.sh")], check=True)
        run(args)
    elif args.mrtr:
        count_mrtr(args.url, args.calls)
    else:
        count(args.url, args.rev, args.calls, args.conc)


if __name__ == "__main__":
    main()
