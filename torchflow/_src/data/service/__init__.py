"""``tf.data.experimental.service``: input pipelines run by dispatcher and worker servers.

See ``docs/data_service.md`` for the design: ``server_lib`` (config tuples and the
two servers), ``dispatcher`` (the dispatcher's state machine and journal),
``worker`` (tasks that run a pipeline and serve its elements), ``splits``
(``distributed_epoch``'s split of the source), ``data_service_ops`` (the
consumer-side dataset) and ``_wire``/``_transport`` (how messages travel).
"""
