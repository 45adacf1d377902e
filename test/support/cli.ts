// Runs the CLI in-process with captured stdout/stderr.
import { main, type CliIo } from '../../src/shell/cli/main.js'

/** Run `main(argv)` and return its exit code and everything it wrote. */
export const runCli = async (argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
  let stdout = ''
  let stderr = ''
  const io: CliIo = { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), isTty: false }
  const code = await main(argv, io)
  return { code, stdout, stderr }
}
