"""Parses Prometheus text format from stdin with the reference client's parser and prints the
samples as JSON: [{"name": ..., "labels": {...}, "value": ...}, ...]. A parse error exits 1."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

samples = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for sample in family.samples:
        samples.append({"name": sample.name, "labels": sample.labels, "value": sample.value, "type": family.type})
json.dump(samples, sys.stdout)
