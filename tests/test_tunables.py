"""A machine's settings of the models' tunable knobs (models.tunables), read from a copy of its /proc/sys and
/sys/block: what is read, what is not and why, and bad files named by file and line."""

import warnings

import pytest

from kernel_workbook.errors import UnreadTunableWarning, WorkbookParameterError, WorkbookParseError
from kernel_workbook.models.cfq.params import IOParams
from kernel_workbook.models.compaction import params_for
from kernel_workbook.models.tunables import df_tunables, with_tunables


def machine(tmp_path, files: dict):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


VM = {"proc/sys/vm/extfrag_threshold": "500\n", "proc/sys/vm/min_free_kbytes": "67584\n",
      "proc/sys/vm/swappiness": "10\n", "proc/sys/vm/vfs_cache_pressure": "100\n",
      "proc/sys/vm/dirty_expire_centisecs": "3000\n", "proc/sys/vm/dirty_background_ratio": "5\n"}


def test_the_machine_beside_the_model_and_the_model_at_the_machine(tmp_path):
    root = machine(tmp_path, VM)  # a 6.x kernel: the CFS latencies moved to debugfs, so they are not here
    p = params_for("contended-v5")
    df = df_tunables(p, root)
    assert list(df.columns) == ["knob", "file", "unit", "model", "machine", "status"]
    st = df.set_index("knob")["status"].to_dict()
    assert st["extfrag_threshold"] == "same" and st["vm_swappiness"] == "differs"
    assert st["sched_latency_ns"] == "not read: no such file on this kernel"
    with pytest.warns(UnreadTunableWarning, match=r"2 tunable\(s\) not read .*sched_min_granularity_ns "
                                                  r"\(/proc/sys/kernel/sched_min_granularity_ns: no such file"):
        q = with_tunables(p, root)
    assert (q.vm_swappiness, q.min_free_kbytes, q.dirty_background_ratio) == (10, 67584, 5)
    assert q.sched_latency_ns == p.sched_latency_ns  # not read: kept


def test_block_files_need_a_device_and_the_scheduler_in_use_is_the_bracketed_one(tmp_path):
    root = machine(tmp_path, {"sys/block/sdb/queue/scheduler": "noop deadline [cfq] \n",
                              "sys/block/sdb/queue/iosched/slice_idle": "0\n",
                              "sys/block/sdb/queue/iosched/low_latency": "1\n",
                              "sys/block/sdb/queue/nr_requests": "64\n"})
    no_dev = df_tunables(IOParams(), root).set_index("knob")["status"]
    assert set(no_dev) == {"not read: no device given (dev=)"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreadTunableWarning)  # the deadline files and others are not there
        io = with_tunables(IOParams(scheduler="noop"), root, dev="sdb")
    assert (io.scheduler, io.cfq.cfq_slice_idle, io.cfq.cfq_latency, io.nr_requests) == ("cfq", 0.0, True, 64)
    assert df_tunables(io, root, dev="sdb").set_index("knob").loc["scheduler", "file"] == "/sys/block/sdb/queue/scheduler"


@pytest.mark.parametrize("rel,text,words", [
    ("sys/block/sda/queue/scheduler", "[mq-deadline] kyber bfq none\n",
     "sys/block/sda/queue/scheduler:1: expected one of 'noop', 'deadline', 'cfq'"),
    ("sys/block/sda/queue/nr_requests", "lots\n", "nr_requests:1: expected an integer for nr_requests"),
    ("sys/block/sda/queue/iosched/low_latency", "2\n", "low_latency:1: expected 0 or 1 for cfq_latency"),
    ("sys/block/sda/queue/iosched/slice_idle", "\n", "slice_idle:1: expected a value for cfq_slice_idle"),
])
def test_a_file_that_holds_no_value_of_its_knob_is_named(tmp_path, rel, text, words):
    root = machine(tmp_path, {rel: text})
    df = df_tunables(IOParams(), root, dev="sda")  # the comparison shows the machine's text and why
    bad = df[df["status"].str.startswith("not a value of the model")]
    assert len(bad) == 1 and bad["machine"].iloc[0] == text.strip()
    with pytest.raises(WorkbookParseError, match=words):
        with_tunables(IOParams(), root, dev="sda")


def test_a_machine_value_outside_the_knob_names_the_file(tmp_path):
    root = machine(tmp_path, {"proc/sys/vm/extfrag_threshold": "5000\n"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreadTunableWarning)
        with pytest.raises(WorkbookParameterError, match=r"extfrag_threshold=5000.*read from .*"
                                                          r"proc/sys/vm/extfrag_threshold"):
            with_tunables(params_for("contended-v5"), root)


def test_a_zone_list_must_have_the_model_s_zones(tmp_path):
    from kernel_workbook.models.fairzone.params import FairZoneParams

    root = machine(tmp_path, {"proc/sys/vm/lowmem_reserve_ratio": "256\t256\t32\t0\t0\n"})  # a 6.x kernel's five
    with pytest.raises(WorkbookParseError, match="3 integers, one per zone the model has"):
        with_tunables(FairZoneParams(), root)
    machine(tmp_path, {"proc/sys/vm/lowmem_reserve_ratio": "256\t256\t64\n"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreadTunableWarning)
        assert with_tunables(FairZoneParams(), root).lowmem_reserve_ratio == (256, 256, 64)


def test_a_bundle_s_settings_file_is_read_like_the_machine(tmp_path):
    """kwb record keeps the settings as PATH = VALUE lines (traces.record.read_settings); a bundle, or the file
    itself, reads back as the files would (the errors name settings.txt and the line)."""
    from kernel_workbook.settings import FILE as SETTINGS
    from kernel_workbook.settings import machine_settings as read_settings

    root = machine(tmp_path / "m", dict(VM, **{"sys/block/sda/queue/scheduler": "noop [deadline] cfq\n",
                                               "proc/sys/vm/drop_caches": "0\n"}))
    (root / "proc/sys/vm/drop_caches").chmod(0o200)  # write-only: not a setting
    lines, unread = read_settings(root)
    assert "/proc/sys/vm/swappiness = 10" in lines and "/sys/block/sda/queue/scheduler = noop [deadline] cfq" in lines
    assert not any("drop_caches" in x for x in lines) and unread == []
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / SETTINGS).write_text("".join(f"{x}\n" for x in lines))
    p = params_for("contended-v5")
    live = df_tunables(p, root).drop(columns="status")
    assert df_tunables(p, bundle).drop(columns="status").equals(live)
    assert df_tunables(p, bundle / SETTINGS).set_index("knob").loc["sched_latency_ns", "status"] == \
        "not read: not in settings.txt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreadTunableWarning)
        assert with_tunables(IOParams(), bundle, dev="sda").scheduler == "deadline"
    (bundle / SETTINGS).write_text("".join(f"{x}\n" for x in lines).replace("= 10\n", "= ten\n", 1))
    with pytest.raises(WorkbookParseError, match=r"settings.txt:\d+: expected an integer for "):
        with_tunables(p, bundle)
