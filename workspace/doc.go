// Package workspace opens one project for the agent, the MCP server and every CLI command. It
// sits between the memory layers and their users, and it is the only package that reads the
// settings files and interprets config.Settings: the layers below take their own Options
// (instructions.Options, memdir.Options and memdir.Location, extract.ConsolidateOptions,
// llm.Settings, a transcript retention in days), which the Workspace builds.
//
// Open reads the settings once, keeping the files that could not be read or parsed as
// Diagnostics (reported by whoever opened the workspace, once), and resolves the project root.
// Nothing else is read or opened until asked for: Store opens the memory store on first use,
// Ranker makes the recall ranker over it, Instructions loads an instruction set with the
// MEMORY.md index as its auto-memory piece (and each mounted memory store's after it, within
// one index budget). Stores lists the memory stores — the project's own, then those the
// memoryStores setting and STRATA_MEMORY_STORES mount — and is the one place that resolves
// them; a mounted store's directory is never created. A command pays only for what it uses.
package workspace
