//! What the commands print that is more than a line: the goal's report as text, markdown and a
//! page, the fleet's page, and the page shell they share. Made from data the ops gathered; pure,
//! no I/O.

pub mod fleet_page;
pub mod page;
pub mod report_page;
pub mod report_text;
