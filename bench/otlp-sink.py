#!/usr/bin/env python3
"""An OTLP/HTTP sink for the tracing figures (BENCHMARKS.md, "Cost of tracing spans"): answers
every POST (`/v1/traces`…) with 200 and an empty body, after reading it, and counts the bytes.

    python3 bench/otlp-sink.py PORT    # serves http://127.0.0.1:PORT until interrupted
"""
import http.server
import sys


class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    received = 0

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        Sink.received += len(self.rfile.read(length))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 4318
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Sink)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        print(f"otlp-sink: {Sink.received} bytes received", file=sys.stderr)
