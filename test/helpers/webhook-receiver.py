"""A webhook receiver for the notification tests (test/notify/): verifies each delivery's
Standard Webhooks signature with the Python `standardwebhooks` package (another implementation
than the one that signs), or, without a secret, takes a Slack incoming-webhook message. It prints
one JSON line per delivery (first its port), and answers the first RECEIVER_FAIL_FIRST deliveries
with 500. A repeated webhook-id is reported as a duplicate: a receiver drops those."""
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

SECRET = os.environ.get("RECEIVER_SECRET")
state = {"fail": int(os.environ.get("RECEIVER_FAIL_FIRST", "0")), "seen": set()}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        headers = {k.lower(): v for (k, v) in self.headers.items()}
        record = {"path": self.path, "headers": headers, "status": 204}
        try:
            record["payload"] = Webhook(SECRET).verify(body, headers) if SECRET else json.loads(body)
            record["verified"] = SECRET is not None
        except (WebhookVerificationError, ValueError) as error:
            record["verified"] = False
            record["error"] = str(error)
            record["status"] = 400
        if record["status"] == 204 and state["fail"] > 0:
            state["fail"] -= 1
            record["status"] = 500
        elif record["status"] == 204:
            record["duplicate"] = headers.get("webhook-id") in state["seen"]
            state["seen"].add(headers.get("webhook-id"))
        print(json.dumps(record), flush=True)
        self.send_response(record["status"])
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(json.dumps({"port": server.server_address[1]}), flush=True)
server.serve_forever()
