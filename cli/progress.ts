// A one-line spinner for work that takes a while (compiles, deploys, upstream
// calls). Written here rather than taken from npm: all it needs is a frame
// redrawn in place on a terminal and erased when the work ends; output that
// is piped or redirected gets nothing at all.

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const INTERVAL_MS = 80;
/** Back to the line's start and erase it (ANSI CSI 2K). */
const CLEAR_LINE = "\r\u001b[2K";

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Runs `work` while `message` spins on `stream` when it is a terminal; the line
 * is erased when the work settles, whether it succeeded or threw.
 */
export async function withSpinner<T>(
  message: string,
  work: () => Promise<T>,
  stream: ProgressStream = process.stderr,
): Promise<T> {
  if (stream.isTTY !== true) return work();
  let frame = 0;
  const draw = () => {
    stream.write(`${CLEAR_LINE}${FRAMES[frame % FRAMES.length] ?? ""} ${message}`);
    frame += 1;
  };
  draw();
  const timer = setInterval(draw, INTERVAL_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    stream.write(CLEAR_LINE);
  }
}
