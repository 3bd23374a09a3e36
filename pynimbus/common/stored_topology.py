"""How Nimbus stores a topology and how supervisors read it back: the blob keys of its jar,
code and conf (``ConfigUtils.masterStorm*Key``) and the compressed-JSON codec of its conf
(``Utils.toCompressedJsonConf`` / ``fromCompressedJsonConf``)."""

import json

from pynimbus.cluster.serialization import gunzip_bytes, gzip_bytes


def to_compressed_json_conf(conf):
    """Port of ``Utils.toCompressedJsonConf``: gzip of the conf as compact JSON."""
    return gzip_bytes(json.dumps(conf, separators=(",", ":"), default=str).encode("utf-8"))


def from_compressed_json_conf(data):
    """Port of ``Utils.fromCompressedJsonConf``."""
    return json.loads(gunzip_bytes(data).decode("utf-8"))


def master_stormjar_key(storm_id):
    """Port of ``ConfigUtils.masterStormJarKey``: the blob key of a topology's jar."""
    return storm_id + "-stormjar.jar"


def master_stormcode_key(storm_id):
    """Port of ``ConfigUtils.masterStormCodeKey``: the blob key of a topology's code."""
    return storm_id + "-stormcode.ser"


def master_stormconf_key(storm_id):
    """Port of ``ConfigUtils.masterStormConfKey``: the blob key of a topology's conf."""
    return storm_id + "-stormconf.ser"
