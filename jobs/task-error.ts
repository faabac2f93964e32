/** A refusal of a task job: the job fails with this code and message, without retries. */
export class TaskError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'TaskError';
    this.code = code;
  }
}
