// The last line of defence before a log line leaves the process: whatever a message quotes (an error from a
// library, a YAML error quoting a kubeconfig line, a git URL), credentials are cut out: the shapes credentials
// take in kimops's inputs (model/credential-shapes.ts: kubeconfig fields, HTTP authorization values, URL user info,
// PEM keys, JWTs, GitHub tokens), plus the exact values kimops read from its credential environment variables and
// files, whatever their shape.
import { cutCredentialShapes, REDACTED } from '../../model/credential-shapes.js';

/** `text` with every credential-shaped part and every one of `secrets` replaced by "[redacted]". */
export function redactCredentials(text: string, secrets: readonly string[] = []): string {
  let out = text;
  // The known values first: a token of an unknown shape is still cut.
  for (const secret of secrets) if (secret.length >= 8) out = out.split(secret).join(REDACTED);
  return cutCredentialShapes(out);
}
