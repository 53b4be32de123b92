#!/usr/bin/env python3
"""A loopback HTTP server that streams an SSE file slowly: the first half
of its events, then a pause until the command fed from it (through curl
-sN when there is one, else a Python reader) has written its first output
line, then the rest.  Passes when that line came while the stream was
still open; fails when it only came at the end.  Bounded: 20 s at most.

usage: loopback.py FILE -- CMD ARG..."""
import http.server
import shutil
import subprocess
import sys
import threading

first_line = threading.Event()


def main():
    sep = sys.argv.index("--")
    path, cmd = sys.argv[1], sys.argv[sep + 1:]
    data = open(path, "rb").read()
    events = [e + b"\n\n" for e in data.split(b"\n\n") if e.strip()]
    half = max(1, len(events) // 2)
    result = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for e in events[:half]:
                self.wfile.write(e)
                self.wfile.flush()
            result["early"] = first_line.wait(10)
            for e in events[half:]:
                self.wfile.write(e)
                self.wfile.flush()

        def log_message(self, *a):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.handle_request, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}/"
    if shutil.which("curl"):
        fetch = ["curl", "-sN", url]
    else:
        fetch = [sys.executable, "-c", "import sys, urllib.request\n"
                 "r = urllib.request.urlopen(sys.argv[1])\n"
                 "while (b := r.read1(4096)):\n"
                 "    sys.stdout.buffer.write(b); sys.stdout.buffer.flush()", url]
    f = subprocess.Popen(fetch, stdout=subprocess.PIPE)
    p = subprocess.Popen(cmd, stdin=f.stdout, stdout=subprocess.PIPE)
    f.stdout.close()
    line = p.stdout.readline()
    first_line.set()
    rest = p.stdout.read()
    try:
        p.wait(20)
        f.wait(20)
    except subprocess.TimeoutExpired:
        p.kill()
        f.kill()
        print("loopback: timed out", file=sys.stderr)
        return 1
    if not line or not rest:
        print("loopback: no output", file=sys.stderr)
        return 1
    if not result.get("early"):
        print("loopback: the first output line came only at the stream's end",
              file=sys.stderr)
        return 1
    return 0


sys.exit(main())
