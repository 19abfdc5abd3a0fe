"""The command line run in this process, as a user types it: exit status, standard output, standard error."""

from __future__ import annotations

from edge_agent.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err
