#!/usr/bin/env python3
"""The reference receiver (deploy/examples/webhook_receiver.py) with a scripted fault
schedule, for plan-regen's delivery tests: request N (counted from 1) may be answered
500 or 503, 429 with a Retry-After, be cut by a connection reset in the middle of its
body, or be stored and answered only after a delay (slower than the sender's timeout);
with "max_lines", a request of more lines is answered 413 (a body size limit).
After each request it writes stats.json (requests, duplicate lines, lines stored, 401s).

    faulty_receiver.py DIR   # DIR holds config.json; the receiver writes port, stats.json, lines.jsonl
"""
import json, os, socket, struct, sys, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy", "examples"))
from webhook_receiver import Handler, Receiver, serve  # noqa: E402

directory = sys.argv[1]
config = json.load(open(os.path.join(directory, "config.json")))
schedule = {int(number): fault for number, fault in config.get("faults", {}).items()}
lock, counts = threading.Lock(), {"requests": 0, "refused": 0}


def write_stats(receiver):
    with lock:
        stats = dict(counts, duplicates=receiver.duplicates, stored=len(receiver.seen))
        with open(os.path.join(directory, "stats.json.tmp"), "w") as out:
            json.dump(stats, out)
        os.replace(os.path.join(directory, "stats.json.tmp"), os.path.join(directory, "stats.json"))


class FaultyHandler(Handler):
    def do_POST(self):
        with lock:
            counts["requests"] += 1
            fault = schedule.get(counts["requests"], "")
        length = int(self.headers.get("Content-Length", 0))
        if fault == "reset":  # half the body read, then a TCP reset
            self.rfile.read(length // 2)
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            write_stats(self.server.receiver)
            return
        body = self.rfile.read(length)
        if fault.startswith("slow:"):  # stored, then answered after the sender gave up
            self.server.receiver.accept(body, dict(self.headers.items()))
            time.sleep(float(fault.split(":")[1]))
            status, text, headers = 200, "stored late", {}
        elif fault.startswith("429:"):
            status, text, headers = 429, "slow down", {"Retry-After": fault.split(":")[1]}
        elif fault in ("500", "503"):
            status, text, headers = int(fault), "restarting" if fault == "503" else "internal error", {}
        elif body.count(b"\n") > config.get("max_lines", body.count(b"\n")):
            status, text, headers = 413, "request too large", {}
        else:
            status, text = self.server.receiver.accept(body, dict(self.headers.items()))
            headers = {}
        if status == 401:
            with lock:
                counts["refused"] += 1
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(text.encode())))
            self.end_headers()
            self.wfile.write(text.encode())
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        write_stats(self.server.receiver)


receiver = Receiver(config["secret"], os.path.join(directory, "lines.jsonl"), verify=config.get("verify", True))
write_stats(receiver)
port = config["port"]
serve(port, receiver, config.get("cert"), config.get("key"), handler=FaultyHandler)
