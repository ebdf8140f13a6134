"""Reading the history back (listing.py, resolve.py, tags.py): corrupt and hand-edited run
folders are listed as unreadable and nothing else is lost; runs named by id, prefix, tag,
latest and previous; clear messages for ambiguous prefixes and unknown names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from holodeck_lsp.runner.run_history import (
    RunNotFound,
    RunUnreadable,
    TagError,
    list_runs,
    resolve,
    runs_folder,
    scan,
)
from holodeck_lsp.runner.run_history.tags import check_name, read_tags, write_tags
from tests.runner.run_history.history_suite import replay, run_folders, write_suite


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three stored runs of one suite (the last one failing)."""
    folder = tmp_path_factory.mktemp("history")
    cassette = write_suite(folder)
    assert replay(folder, cassette) == 0
    assert replay(folder, cassette) == 0
    from tests.runner.run_history.history_suite import write_cassette

    assert replay(folder, write_cassette(folder / "bad.json", ("1", "2", "no"))) == 1
    return folder


def copy_of(history: Path, tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / "suite"
    shutil.copytree(history, target)
    return target


def test_runs_are_listed_oldest_first_with_their_counts(history: Path) -> None:
    runs = list_runs(runs_folder(history / "agent.yaml"))
    assert [run.id for run in runs] == [p.name for p in run_folders(history)]
    assert [run.meta.cases.passed for run in runs] == [2, 2, 0]
    assert [run.started for run in runs] == sorted(run.started for run in runs)
    assert runs[-1].load_report().summary.failed == 2


def test_latest_previous_id_and_prefix(history: Path) -> None:
    folder = runs_folder(history)
    runs = list_runs(folder)
    assert resolve("latest", folder).id == runs[-1].id
    assert resolve("previous", folder).id == runs[-2].id
    assert resolve(runs[0].id, folder).id == runs[0].id
    # The shortest prefix that tells the first run from the others.
    for length in range(1, len(runs[0].id) + 1):
        prefix = runs[0].id[:length]
        if sum(run.id.startswith(prefix) for run in runs) == 1:
            break
    assert resolve(prefix, folder).id == runs[0].id


def test_an_ambiguous_prefix_names_the_candidates(history: Path) -> None:
    folder = runs_folder(history)
    with pytest.raises(RunNotFound) as caught:
        resolve("20", folder)
    message = str(caught.value)
    assert message.startswith("run id prefix '20' is ambiguous: it matches 3 runs")
    assert all(run.id in message for run in list_runs(folder))
    assert "give more of the id" in message


def test_an_unknown_name_says_what_is_there(history: Path) -> None:
    with pytest.raises(RunNotFound, match=r"no stored run 'nightly': not an id, id prefix or tag "
                       r"of the 3 stored runs .*`holodeck-lsp runs` lists them"):  # fmt: skip
        resolve("nightly", runs_folder(history))


def test_latest_of_an_empty_history(tmp_path: Path) -> None:
    with pytest.raises(RunNotFound, match=r"there is no stored run in .*run the suite"):
        resolve("latest", runs_folder(tmp_path))
    assert list_runs(runs_folder(tmp_path)) == []


def test_tags_name_runs_and_survive_a_reread(history: Path, tmp_path: Path) -> None:
    suite = copy_of(history, tmp_path)
    folder = runs_folder(suite)
    first = list_runs(folder)[0]
    write_tags(folder, {"baseline": first.id})
    assert resolve("baseline", folder).id == first.id
    assert list_runs(folder)[0].tags == ("baseline",)
    # A tag left pointing at a run deleted by hand.
    import shutil

    shutil.rmtree(first.folder)
    with pytest.raises(RunNotFound, match=r"tag 'baseline' names run .* no longer stored"):
        resolve("baseline", folder)


@pytest.mark.parametrize(
    ("name", "why"),
    [("latest", "always means the latest run"), ("previous", "always means"),
     ("20261201-223015-3f2a", "looks like a run id"), ("-x", "not a tag name"), ("", "not a")],
)  # fmt: skip
def test_names_a_tag_cannot_have(name: str, why: str) -> None:
    with pytest.raises(TagError, match=why):
        check_name(name)


def test_a_corrupt_tags_file_is_reported_and_never_overwritten(
    history: Path, tmp_path: Path
) -> None:
    suite = copy_of(history, tmp_path)
    folder = runs_folder(suite)
    (folder / "tags.json").write_text('{"version": 1, "tags": {"a": 1}}', encoding="utf-8")
    with pytest.raises(TagError, match="is not a tags file of version 1"):
        read_tags(folder)
    listing = scan(folder)
    assert len(listing.runs) == 3 and listing.tag_problem is not None


def break_runs(suite: Path) -> dict[str, str]:
    """Each way a run folder can be spoiled by hand; folder name -> the reason expected."""
    folder = runs_folder(suite)
    first, second, third = run_folders(suite)
    (first / "run.json").write_text("{not json", encoding="utf-8")
    (second / "report.json").unlink()
    meta = json.loads((third / "run.json").read_text(encoding="utf-8"))
    (third / "run.json").write_text(json.dumps({**meta, "format_version": 7}), encoding="utf-8")
    (folder / "my-notes").mkdir()
    renamed = folder / "20200101-000000-0000"
    (renamed).mkdir()
    (renamed / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    (renamed / "report.json").write_text("{}", encoding="utf-8")
    return {
        first.name: "run.json is not JSON (line 1",
        second.name: "report.json is missing",
        third.name: "run.json has format version 7, this holodeck-lsp reads version 1",
        "my-notes": "not a run folder",
        renamed.name: "but the folder is named otherwise",
    }


def test_corrupt_folders_are_listed_as_unreadable_and_the_rest_kept(
    history: Path, tmp_path: Path
) -> None:
    suite = copy_of(history, tmp_path)
    cassette = suite / "cassette.json"
    expected = break_runs(suite)
    assert replay(suite, cassette) == 0  # a new run is stored beside the broken ones
    listing = scan(runs_folder(suite))
    assert len(listing.runs) == 1
    reasons = {broken.name: broken.reason for broken in listing.unreadable}
    assert set(reasons) == set(expected)
    for name, start in expected.items():
        assert start in reasons[name], reasons[name]
        assert "delete the folder (nothing else depends on it) or restore it" in reasons[name]
    assert resolve("latest", runs_folder(suite)).id == listing.runs[0].id
    # Naming a broken run says why it cannot be used.
    broken = next(iter(expected))
    with pytest.raises(RunNotFound, match=f"run {broken} cannot be read: run.json is not JSON"):
        resolve(broken, runs_folder(suite))


def test_a_report_spoiled_after_listing_says_so_when_loaded(history: Path, tmp_path: Path) -> None:
    suite = copy_of(history, tmp_path)
    run = list_runs(runs_folder(suite))[0]
    run.report_path.write_text('{"agent_name": 1}', encoding="utf-8")
    with pytest.raises(RunUnreadable, match=r"report.json is not a holodeck-lsp report"):
        run.load_report()
    run.report_path.write_text("[", encoding="utf-8")
    with pytest.raises(RunUnreadable, match=r"report.json is not JSON"):
        run.load_report()
