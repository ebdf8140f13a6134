"""Where BFCL's multi-turn files are read from: the `bfcl-eval` wheel (a zip, read in place),
an unpacked copy of it, or one `BFCL_v*_multi_turn_<category>.json` with its `possible_answer/`
file and the `multi_turn_func_doc/` folder beside it."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from holodeck_lsp.checker.file_reading import max_file_bytes, read_file_text, too_large
from holodeck_lsp.importers.bfcl.errors import ImportInputError

#: BFCL's multi-turn categories, in BFCL's order.
CATEGORIES = ("base", "miss_func", "miss_param", "long_context")

_QUESTION = re.compile(r"BFCL_v\d+_multi_turn_(base|miss_func|miss_param|long_context)\.json")
_GET = "pip download --no-deps bfcl-eval -d DIR"


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file's text and how messages name it (`wheel.whl:bfcl_eval/data/…` inside a zip)."""

    label: str
    text: str


@dataclass(frozen=True, slots=True)
class BfclFiles:
    questions: dict[str, SourceFile]
    answers: dict[str, SourceFile]
    #: multi_turn_func_doc/<file>.json by file name.
    func_docs: dict[str, SourceFile]


def read_source(path: Path, categories: Sequence[str]) -> BfclFiles:
    """The files of `categories` under `path`; ImportInputError naming what is missing."""
    if not path.exists():
        raise ImportInputError(f"{path}: no such file or folder (get the wheel with `{_GET}`)")
    if path.is_file() and zipfile.is_zipfile(path):
        return _from_zip(path, categories)
    if path.is_dir():
        names = [str(PurePosixPath(*p.relative_to(path).parts)) for p in path.rglob("*.json")]
        return _collect(str(path), names, lambda name: _read(path / name), categories)
    match = _QUESTION.fullmatch(path.name)
    if match is None:
        raise ImportInputError(
            f"{path}: not the bfcl-eval wheel, a folder, nor a BFCL_v4_multi_turn_*.json file "
            f"(get the wheel with `{_GET}` and pass the .whl)"
        )
    return _single(path, match.group(1))


def _from_zip(path: Path, categories: Sequence[str]) -> BfclFiles:
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as error:
        raise ImportInputError(f"{path}: not a readable zip ({error}); download it again") from None
    with archive:

        def read(name: str) -> str:
            try:
                size, limit = archive.getinfo(name).file_size, max_file_bytes()
                if size > limit:  # a member is read whole: the same limit as a file's
                    raise too_large(f"{path}:{name}", size, limit)
                return archive.read(name).decode("utf-8")
            except (zipfile.BadZipFile, OSError, UnicodeDecodeError) as error:
                raise ImportInputError(
                    f"{path}:{name}: cannot be read ({error}); download the wheel again"
                ) from None

        return _collect(str(path), archive.namelist(), read, categories)


def _read(path: Path) -> str:
    try:
        return read_file_text(path, "utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ImportInputError(f"{path}: cannot be read ({error})") from None


def _collect(
    where: str, names: list[str], read: Callable[[str], str], categories: Sequence[str]
) -> BfclFiles:
    questions: dict[str, str] = {}
    answers: dict[str, str] = {}
    docs: dict[str, str] = {}
    for name in sorted(names):
        parts = PurePosixPath(name).parts
        if "unused_datasets" in parts:
            continue
        match = _QUESTION.fullmatch(parts[-1])
        if match is not None:
            table = answers if len(parts) > 1 and parts[-2] == "possible_answer" else questions
            table.setdefault(match.group(1), name)
        elif len(parts) > 1 and parts[-2] == "multi_turn_func_doc":
            docs.setdefault(parts[-1], name)
    missing = [c for c in categories if c not in questions or c not in answers]
    if missing or not docs:
        what = (
            f"the multi-turn data of {', '.join(missing)}"
            if missing
            else "the multi_turn_func_doc folder"
        )
        raise ImportInputError(
            f"{where}: has no {what} (expected bfcl_eval/data/BFCL_v4_multi_turn_<category>.json, "
            f"its possible_answer/ file and multi_turn_func_doc/; get them with `{_GET}`)"
        )

    def label(name: str) -> str:
        return f"{where}:{name}" if not Path(where).is_dir() else str(Path(where) / name)

    return BfclFiles(
        questions={c: SourceFile(label(questions[c]), read(questions[c])) for c in categories},
        answers={c: SourceFile(label(answers[c]), read(answers[c])) for c in categories},
        func_docs={n: SourceFile(label(docs[n]), read(docs[n])) for n in sorted(docs)},
    )


def _single(path: Path, category: str) -> BfclFiles:
    answer = path.parent / "possible_answer" / path.name
    docs = path.parent / "multi_turn_func_doc"
    if not answer.is_file():
        raise ImportInputError(
            f"{path}: its ground truth {answer} is missing (BFCL keeps it in possible_answer/ "
            "beside the question file; pass the wheel or the unpacked folder instead)"
        )
    if not docs.is_dir():
        raise ImportInputError(
            f"{path}: the tool descriptions {docs}/ are missing (pass the wheel or the unpacked "
            "folder instead)"
        )
    return BfclFiles(
        questions={category: SourceFile(str(path), _read(path))},
        answers={category: SourceFile(str(answer), _read(answer))},
        func_docs={
            doc.name: SourceFile(str(doc), _read(doc)) for doc in sorted(docs.glob("*.json"))
        },
    )
