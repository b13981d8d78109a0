// karchive: inspects binary property lists and keyed archives. See `Usage.text`.
let status = Karchive.run(arguments: Array(CommandLine.arguments.dropFirst()))
Karchive.terminate(status)
