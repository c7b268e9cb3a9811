#!/usr/bin/env python3
"""A push service's receiver of plan-regen's notification lines (docs/operations.md,
"The receiver's contract"): verifies each request's Standard Webhooks signature, keeps
each notification once (by its "id": a retry or a rerun may send a line again, grouped
differently), stores the new lines durably, and only then answers 2xx.

    python3 -m venv venv && venv/bin/pip install standardwebhooks
    WEBHOOK_SECRET=whsec_... venv/bin/python webhook_receiver.py --port 8443 --store lines.jsonl
"""
import argparse, json, os, ssl, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from standardwebhooks.webhooks import Webhook, WebhookVerificationError


class Receiver:
    def __init__(self, secret, store_path, verify=True):
        self.webhook = Webhook(secret) if verify else None
        self.lock, self.duplicates = threading.Lock(), 0
        self.seen = set()
        if os.path.exists(store_path):  # a restart keeps de-duplicating
            with open(store_path, "rb") as stored:
                self.seen = {json.loads(line)["id"] for line in stored if line.strip()}
        self.store = open(store_path, "ab")

    def accept(self, body, headers):
        if self.webhook:
            try:
                self.webhook.verify(body, headers, json_parse=False)
            except WebhookVerificationError as refusal:
                return 401, f"invalid signature: {refusal}"
        lines = [line for line in body.split(b"\n") if line.strip()]
        with self.lock:
            new = {}
            for line in lines:
                notification_id = json.loads(line)["id"]
                if notification_id not in self.seen and notification_id not in new:
                    new[notification_id] = line
            self.store.write(b"".join(line + b"\n" for line in new.values()))
            self.store.flush()
            os.fsync(self.store.fileno())  # stored before the 2xx: the sender marks them delivered
            self.seen.update(new)
            self.duplicates += len(lines) - len(new)
        return 200, f"stored {len(new)}, already had {len(lines) - len(new)}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The answer goes out in two writes (headers, then body): with Nagle's algorithm the
    # second waits for the sender's delayed ACK, about 40 ms a request.
    disable_nagle_algorithm = True

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        status, text = self.server.receiver.accept(body, dict(self.headers.items()))
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(text.encode())))
        self.end_headers()
        self.wfile.write(text.encode())

    def log_message(self, *args):
        pass


def serve(port, receiver, cert=None, key=None, handler=Handler):
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.receiver = receiver
    if cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()


if __name__ == "__main__":
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--port", type=int, required=True)
    options.add_argument("--store", required=True, help="JSON lines file the notifications are appended to")
    options.add_argument("--tls-cert"), options.add_argument("--tls-key")
    options.add_argument("--no-verify", action="store_true", help="skip the signature check (benchmarks only)")
    arguments = options.parse_args()
    receiver = Receiver(os.environ.get("WEBHOOK_SECRET", ""), arguments.store, verify=not arguments.no_verify)
    serve(arguments.port, receiver, arguments.tls_cert, arguments.tls_key)
