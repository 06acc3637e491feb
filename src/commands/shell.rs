//! `iomark completions` and `iomark man`: what a shell and `man` need, made from the clap
//! definitions themselves, so they can never disagree with the options.

use anyhow::bail;
use clap::CommandFactory;

use super::write_stdout;
use crate::cli::{Cli, CompletionsArgs, ManArgs};

pub fn completions(args: CompletionsArgs) -> anyhow::Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "iomark", &mut script);
    write_stdout(&script)
}

pub fn man(args: ManArgs) -> anyhow::Result<()> {
    let mut command = Cli::command();
    command.build();
    let page = match &args.command {
        None => command,
        Some(name) => {
            let Some(sub) = command.find_subcommand(name).cloned() else {
                let names: Vec<String> = command
                    .get_subcommands()
                    .map(|c| c.get_name().to_string())
                    .collect();
                bail!("no command '{name}' (commands: {})", names.join(", "));
            };
            sub.name(format!("iomark-{name}"))
        }
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff)?;
    write_stdout(&roff)
}
