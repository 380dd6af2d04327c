"""Reads a run folder's TensorBoard event files with TensorBoard's own reader and prints what it
found as one JSON object, for tests/integration/tst_tensorboard.cpp to compare with events.jsonl.

Usage: tensorboard_read.py RUN_FOLDER
Output: {"files": [names], "scalars": {tag: [[step, value], ...]},
         "hparams": {"experiment": {"hparams": {name: type}, "metrics": [tags]},
                     "start": {"hparams": {name: value}, "start_time_secs": t},
                     "end": {"status": name, "end_time_secs": t}}}  (keys present when written)
Exit status 77 when the tensorboard package cannot be imported (the test then skips, saying so).
"""
import json
import os
import sys

try:
    from google.protobuf import json_format
    from tensorboard.backend.event_processing import event_accumulator
    from tensorboard.plugins.hparams import api_pb2
    from tensorboard.plugins.hparams import metadata
except ImportError as e:
    print("the tensorboard Python package is not importable: %s" % e)
    sys.exit(77)


def main(run_dir):
    # 0: keep every point (the default keeps a sample of 10000 scalars per tag).
    acc = event_accumulator.EventAccumulator(
        run_dir, size_guidance={event_accumulator.SCALARS: 0, event_accumulator.TENSORS: 0}
    )
    acc.Reload()
    out = {
        "files": sorted(n for n in os.listdir(run_dir) if "tfevents" in n),
        "scalars": {
            tag: [[s.step, s.value] for s in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]
        },
        "hparams": {},
    }
    try:
        contents = acc.PluginTagToContent(metadata.PLUGIN_NAME)
    except KeyError:  # no HParams records
        contents = {}
    if metadata.EXPERIMENT_TAG in contents:
        experiment = metadata.parse_experiment_plugin_data(contents[metadata.EXPERIMENT_TAG])
        out["hparams"]["experiment"] = {
            "hparams": {h.name: api_pb2.DataType.Name(h.type) for h in experiment.hparam_infos},
            "metrics": [m.name.tag for m in experiment.metric_infos],
        }
    if metadata.SESSION_START_INFO_TAG in contents:
        start = metadata.parse_session_start_info_plugin_data(contents[metadata.SESSION_START_INFO_TAG])
        out["hparams"]["start"] = {
            "hparams": {k: json_format.MessageToDict(v) for k, v in start.hparams.items()},
            "start_time_secs": start.start_time_secs,
        }
    if metadata.SESSION_END_INFO_TAG in contents:
        end = metadata.parse_session_end_info_plugin_data(contents[metadata.SESSION_END_INFO_TAG])
        out["hparams"]["end"] = {"status": api_pb2.Status.Name(end.status), "end_time_secs": end.end_time_secs}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
