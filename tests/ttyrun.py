"""tests/ttyrun.py: runs a program on a pseudo-terminal, for tests of what
programs show only on a terminal (lib/progress.h).

    import ttyrun
    output = ttyrun.run(["ovsdb-tool", "compact", "db"])

As a script: ttyrun.py OUT PROGRAM ARG... writes what PROGRAM wrote to
the terminal in OUT and exits with PROGRAM's status."""

import os
import pty
import sys


def run(argv, stdin=None, stdout=None, check=True):
    """Runs 'argv' with its standard streams on a pseudo-terminal, except
    stdin read from the file 'stdin' and stdout written to the file
    'stdout' if given.  Returns (what it wrote to the terminal, exit
    status); with 'check', exits the test if the status is not 0."""
    pid, fd = pty.fork()
    if pid == 0:
        if stdin:
            os.dup2(os.open(stdin, os.O_RDONLY), 0)
        if stdout:
            os.dup2(os.open(stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                    1)
        os.execvp(argv[0], argv)
    data = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:         # EIO: the program closed the terminal.
            break
        if not chunk:
            break
        data += chunk
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if check and code:
        sys.exit("%s failed (%d): %r" % (" ".join(argv), code, data[:300]))
    return data, code


if __name__ == "__main__":
    output, status = run(sys.argv[2:], check=False)
    with open(sys.argv[1], "wb") as f:
        f.write(output)
    sys.exit(status)
