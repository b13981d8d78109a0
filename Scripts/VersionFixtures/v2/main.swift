import Foundation
import KeyedArchive

// Version 2 of the kennel models is Tests/KeyedArchiveTests/Models/KennelModels.swift, copied
// beside this file by Scripts/make-version-fixtures.sh.
let output = URL(fileURLWithPath: CommandLine.arguments[1])
try KeyedArchiver.archivedData(withRootObject: KennelSample.team()).write(to: output.appending(path: "v2-team.archive"))
try KeyedArchiver.archivedData(withRootObject: KennelSample.members()).write(to: output.appending(path: "v2-members.archive"))
