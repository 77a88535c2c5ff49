// A dependency-free progress bar. On a terminal it redraws one line; in CI logs and
// pipes, where `\r` produces a wall of text, it prints a handful of lines instead.

const WIDTH = 20;
/** Non-TTY output prints at each quarter, so a phase never logs more than ~5 lines. */
const PLAIN_STEPS = 4;

export interface Progress {
  advance(by?: number): void;
  /** Safe to call more than once (it is also called from `finally` after a failure). */
  finish(): void;
}

export type ProgressSink = { tty: NodeJS.WritableStream } | { log: (line: string) => void };

export function renderBar(done: number, total: number, label: string): string {
  const filled = total > 0 ? Math.min(WIDTH, Math.round((done / total) * WIDTH)) : WIDTH;
  return `[${"#".repeat(filled)}${".".repeat(WIDTH - filled)}] ${done}/${total} ${label}`;
}

export function createProgress(label: string, total: number, sink: ProgressSink): Progress {
  let done = 0;
  let finished = false;
  let printedStep = 0;

  const draw = () => {
    if ("tty" in sink) {
      sink.tty.write(`\r${renderBar(done, total, label)}`);
      return;
    }
    const step = total > 0 ? Math.floor((done / total) * PLAIN_STEPS) : PLAIN_STEPS;
    if (step > printedStep) {
      printedStep = step;
      sink.log(renderBar(done, total, label));
    }
  };

  return {
    advance(by = 1) {
      if (finished) return;
      done = Math.min(total, done + by);
      draw();
    },
    finish() {
      if (finished || total === 0) return;
      finished = true;
      // A TTY bar is left on its own line so the next log line does not overwrite it.
      if ("tty" in sink) sink.tty.write("\n");
    },
  };
}
