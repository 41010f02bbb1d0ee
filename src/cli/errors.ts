/**
 * The command's input errors: both exit 2 with the message, never a stack trace (exit 1 is
 * for internal errors only).
 */

/** Bad command-line usage: exit code 2 with the message and the usage text. */
export class UsageError extends Error {}

/** Invalid input outside the scenario text (unreadable file, unknown preset): exit 2, no usage text. */
export class InputError extends UsageError {}
