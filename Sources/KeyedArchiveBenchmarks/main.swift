import Foundation

// KeyedArchiveBenchmarks: this library against Foundation, side by side, in one run.
// `--help` lists the options; `--list` the workloads.

do {
    let settings = try BenchmarkSettings.parse(CommandLine.arguments.dropFirst())
    let workloads = PlistWorkloads.all
    exit(Harness(settings: settings).run(workloads))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
