"""A Python metrics consumer for tests: appends each batch it gets, as one JSON line
``{"task_info": [...], "data_points": {name: value}, "prepared": {...}}``, to the file its
registration's ``argument`` names."""

import json

from pynimbus.common.metrics_consumer import IMetricsConsumer


class RecordingConsumer(IMetricsConsumer):
    def prepare(self, storm_conf, registration_argument, context, error_reporter):
        self.path = registration_argument
        self.prepared = {"component_id": context.component_id, "task_id": context.task_id,
                         "bucket": storm_conf.get("topology.builtin.metrics.bucket.size.secs")}

    def handle_data_points(self, task_info, data_points):
        with open(self.path, "a") as f:
            f.write(json.dumps({"task_info": list(task_info),
                                "data_points": {p.name: p.value for p in data_points},
                                "prepared": self.prepared}) + "\n")
