// Where kimops's servers (the webhook receiver, the metrics endpoint) listen unless told otherwise: this host
// only, so nothing is reachable from outside before an operator chooses an address. Its own module so that the
// command declarations can show it in --help without loading node:http.
export const DEFAULT_HOST = '127.0.0.1';
