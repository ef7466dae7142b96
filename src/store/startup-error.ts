/** A problem that stops start-up; its message is one line for the user. */
export class StartupError extends Error {}
