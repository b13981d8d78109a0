import Foundation

// KeyedArchiveBenchmarks: this library against Foundation, side by side, in one run.
// `--help` lists the options; `--list` the workloads.

if CommandLine.arguments.dropFirst().first == "decode" {
    exit(DecodeCommand.run(Array(CommandLine.arguments.dropFirst(2))))
}
if CommandLine.arguments.dropFirst().first == "store-io" {
    exit(StoreIOCommand.run(Array(CommandLine.arguments.dropFirst(2))))
}

do {
    let settings = try BenchmarkSettings.parse(CommandLine.arguments.dropFirst())
    // Profiling ours alone (`--only ours-…`) leaves out Foundation's contenders and their probes.
    let workloads = PlistWorkloads.all + KeyedWorkloads.all(foundation: settings.only?.contender != "ours") + KeyedXMLWorkloads.all + MigrationWorkloads.all + StoreWorkloads.all + StoreCacheWorkloads.all
    exit(Harness(settings: settings, summarizers: [KeyedWorkloads.summarize]).run(workloads))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
