import Metrics
import Testing

@Suite("Prometheus text exposition")
struct ExpositionTests {
    @Test func countersGaugesAndSampledSeriesRenderWithHelpAndType() {
        let registry = MetricsRegistry()
        let hits = registry.counter("demo_hits_total", help: "Hits.", labels: [("route", "/a")])
        let other = registry.counter("demo_hits_total", help: "Hits.", labels: [("route", "/b")])
        let open = registry.gauge("demo_open", help: "Open things.")
        registry.sampled("demo_version", help: "Version.", kind: .gauge) { 7 }
        hits.increment()
        hits.increment(by: 2)
        other.increment()
        open.add(5)
        open.add(-2)
        #expect(
            registry.exposition() == """
                # HELP demo_hits_total Hits.
                # TYPE demo_hits_total counter
                demo_hits_total{route="/a"} 3
                demo_hits_total{route="/b"} 1
                # HELP demo_open Open things.
                # TYPE demo_open gauge
                demo_open 3
                # HELP demo_version Version.
                # TYPE demo_version gauge
                demo_version 7

                """)
    }

    @Test func histogramBucketsAreCumulativeWithSumAndCount() {
        let registry = MetricsRegistry()
        let histogram = registry.histogram(
            "demo_seconds", help: "Durations.", labels: [("route", "/x")], bounds: [0.001, 0.01])
        histogram.observe(nanoseconds: 500_000)  // 0.5 ms → first bucket
        histogram.observe(nanoseconds: 1_000_000)  // exactly on the bound → first bucket (le is ≤)
        histogram.observe(nanoseconds: 5_000_000)  // second
        histogram.observe(.seconds(2))  // overflow
        #expect(
            registry.exposition() == """
                # HELP demo_seconds Durations.
                # TYPE demo_seconds histogram
                demo_seconds_bucket{route="/x",le="0.001"} 2
                demo_seconds_bucket{route="/x",le="0.01"} 3
                demo_seconds_bucket{route="/x",le="+Inf"} 4
                demo_seconds_sum{route="/x"} 2.0065
                demo_seconds_count{route="/x"} 4

                """)
    }

    @Test func labelValuesAndHelpAreEscaped() {
        let registry = MetricsRegistry()
        registry.sampled(
            "demo_info", help: "Back\\slash and\nnewline.", kind: .gauge, labels: [("v", "a\"b\\c\nd")]
        ) { 1 }
        let text = registry.exposition()
        #expect(text.contains(#"# HELP demo_info Back\\slash and\nnewline."#))
        #expect(text.contains(#"demo_info{v="a\"b\\c\nd"} 1"#))
    }

    @Test func countersAreExactUnderConcurrentUpdates() async {
        let counter = Counter()
        let histogram = Histogram(bounds: [0.001])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<10_000 {
                        counter.increment()
                        histogram.observe(nanoseconds: 10)
                    }
                }
            }
        }
        #expect(counter.value == 80_000)
        #expect(histogram.snapshot().cumulative == [80_000, 80_000])
    }

    @Test func nonIntegersAndInfinityUsePrometheusSpelling() {
        let registry = MetricsRegistry()
        registry.sampled("demo_a", help: "A.", kind: .gauge) { 1.5 }
        registry.sampled("demo_b", help: "B.", kind: .gauge) { .infinity }
        let text = registry.exposition()
        #expect(text.contains("demo_a 1.5\n"))
        #expect(text.contains("demo_b +Inf\n"))
    }
}
