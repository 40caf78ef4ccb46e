"""What the docs tests read from a Markdown page (README.md, docs/*.md).

The convention the pages follow:
- A fenced block whose info string is `sh` (or `bash`) or `python` is run by the docs test,
  in page order, in one shell per page (tests/docs/run_page.py). `sh no-test` / `python
  no-test` is shown but not run: commands that download, install, build or take hours.
  Every other block (`text`, `json`, `sql`, `cpp`) is output, a synopsis or a file, never run.
- `<!-- docs-test: what this is for`, then shell lines, then `-->` on a line of its own: lines
  the test runs at that point and a reader never sees (what stands in for a download).
- `<!-- commands: score cost "batch merge" -->` names the commands whose every option the page
  documents (tests/docs/check_flags.py); `(global options)` stands for the options of `sift`
  itself.
"""
import dataclasses
import re
import shlex

RUNNABLE = {"sh": "sh", "bash": "sh", "python": "python"}


@dataclasses.dataclass
class Block:
    kind: str      # "sh", "python", "setup" (a docs-test comment), or the info string's language
    text: str
    line: int      # the first line of the block's content, counted from 1
    runs: bool     # whether the docs test runs it


@dataclasses.dataclass
class Page:
    path: str
    lines: list
    blocks: list
    commands: list  # the command paths this page documents, e.g. ["batch", "batch merge"]
    has_commands_header: bool


def read_page(path):
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    blocks, commands, has_header = [], [], False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        header = re.match(r"<!--\s*commands:(.*?)-->", stripped)
        if header:
            has_header = True
            names = header.group(1)
            commands = ["(global options)"] if "(global options)" in names else []
            commands += shlex.split(names.replace("(global options)", ""))
        elif stripped.startswith("<!-- docs-test"):  # the rest of this line says what it is for
            body, j = [], i + 1
            while "-->" not in lines[j]:
                body.append(lines[j])
                j += 1
            blocks.append(Block("setup", "\n".join(body) + "\n", i + 2, True))
            i = j
        elif stripped.startswith("```"):
            indent = len(line) - len(line.lstrip())
            info = stripped[3:].split()
            language = info[0] if info else ""
            body, j = [], i + 1
            while not lines[j].strip().startswith("```"):
                body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
                j += 1
            runs = language in RUNNABLE and "no-test" not in info[1:]
            blocks.append(Block(RUNNABLE.get(language, language), "\n".join(body) + "\n", i + 2, runs))
            i = j
        i += 1
    return Page(path, lines, blocks, commands, has_header)


def section_blocks(page, heading):
    """The blocks under the `## heading` of a page, up to the next heading of that level."""
    start = next(n for n, line in enumerate(page.lines, 1) if line.strip() == "## " + heading)
    end = next((n for n, line in enumerate(page.lines, 1) if n > start and line.startswith("## ")),
               len(page.lines) + 1)
    return [b for b in page.blocks if start < b.line < end]
