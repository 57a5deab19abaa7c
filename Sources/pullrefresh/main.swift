import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "render" {
    exit(RenderCommand.run(Array(arguments.dropFirst())))
}
if arguments.first == "owner" {
    exit(OwnerCommand.run(Array(arguments.dropFirst())))
}
if arguments.first == "backup" {
    exit(BackupCommand.run(Array(arguments.dropFirst())))
}
exit(await ServeCommand.run(arguments))
