# Cython declarations for stats.py: setup.py compiles that .py with them when it can
# (pynimbus.common.compiled); the .py runs as it is otherwise, so keep the two in step.
cdef class EvenSampler:
    cdef public object freq, _randrange, _curr, _target

cdef class CountStat:
    cdef public object current, bucket_start, next_rotation, times, counts, all_time

cdef class LatencyStat:
    cdef public object current_lat, current_count, bucket_start, next_rotation, times, lats, counts, all_time_lat, all_time_count

cdef class _CountAndLatency:
    cdef public CountStat count
    cdef public LatencyStat latency
    cpdef record(self, amount, latency_ms)

cdef class _CommonStats:
    cdef public object clock, rate, rng, emit_sampler, sample, every_event, emitted_counts, transferred_counts, _emit_stats, _next_rotation
    cpdef emitted_to(self, stream, count)

cdef class SpoutStatsCollector(_CommonStats):
    cdef public object acked_counts, failed_counts, complete_latencies, _acked

cdef class BoltStatsCollector(_CommonStats):
    cdef public object sample_execute, acked_counts, failed_counts, process_latencies, executed_counts, execute_latencies, _executed, _acked
    cpdef executed(self, component, stream, latency_ms)
    cpdef acked(self, component, stream, latency_ms)
