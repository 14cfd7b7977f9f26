// The failures a user can cause, as values. Each names the object, the field and the fix; they
// are rendered once, at the edge (CLI output, Runtime status, PR body). Their messages are built here, with
// the control characters of names escaped (printable.ts): a file or Runtime name is user input, and a
// message is printed to terminals, written into PR bodies and annotations as it is.
import { printable, printableLines } from './printable.js';

/** KIM's condition reason for a Runtime that cannot be converted; the backfiller reports it as is. */
export const CONVERSION_ERROR_REASON = 'ConversionErr';

export class ConversionError extends Error {
  override readonly name = 'ConversionError';
  readonly reason = CONVERSION_ERROR_REASON;
  constructor(
    /** `<namespace>/<name>` of the Runtime. */
    readonly runtime: string,
    /** Path of the offending field in the Runtime or config, e.g. `spec.shoot.networking.nodes`. */
    readonly field: string,
    /** What is wrong and how to fix it. */
    readonly detail: string,
  ) {
    super(`runtime ${printable(runtime)}: ${printable(field)}: ${printableLines(detail)}`);
  }
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    /** The file or object the configuration came from. */
    readonly source: string,
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${printable(source)}: ${field ? `${printable(field)}: ` : ''}${printableLines(detail)}`);
  }
}

/**
 * A failure inside one conversion step, before the pipeline knows which Runtime it serves.
 * The pipeline turns it into a ConversionError naming the Runtime.
 */
export class FieldError extends Error {
  override readonly name = 'FieldError';
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${printable(field)}: ${printableLines(detail)}`);
  }
}

/**
 * A remote kimops depends on — the landscape repo's git server, the forge, a Kubernetes API — failed
 * or refused. Nothing is lost: the next pass starts from what Git and the forge hold.
 */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    /** The remote, e.g. the forge's label or the repo URL. */
    readonly remote: string,
    /** What failed and how to fix it. */
    readonly detail: string,
  ) {
    super(`${printable(remote)}: ${printableLines(detail)}`);
  }
}

/** The ref is no longer what the caller read: another writer moved it in between. */
export class RefMoved extends Error {
  override readonly name = 'RefMoved';
  constructor(
    readonly ref: string,
    readonly expected: string | undefined,
    readonly actual: string | undefined,
  ) {
    super(`${ref} moved: expected ${expected?.slice(0, 12) ?? 'no ref'}, found ${actual?.slice(0, 12) ?? 'no ref'}`);
  }
}
