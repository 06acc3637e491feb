//! Every integration test, in one crate so that the test binary is linked once (as ripgrep's
//! `tests/` are): each module runs the real binary or the library against real files, stores,
//! servers and browsers. `common` holds what they share.

mod backup;
mod browser;
mod charts;
mod cli_run;
mod common;
mod device_names;
mod dump;
mod engine_backends;
mod golden;
mod headlines;
mod health;
mod health_cards;
mod health_share;
mod health_tells;
mod health_timer;
mod hostile_clients;
mod hostile_sites;
mod house;
mod info;
mod install;
mod intake;
mod langs;
mod moderation;
mod openapi;
mod power_cuts;
mod probe_fixtures;
mod replay;
mod replicas;
mod report_words;
mod safety;
mod scripting;
mod service;
mod shell;
mod site;
mod slow_media;
mod store;
mod submitters;
mod surface;
mod ui;
mod verify;
