//! `include_skill!`: a skill directory compiled into the binary (`tests/skills/loud-greeting`),
//! the same bytes as on disk, and the same skill as `Skill::from_dir` reads.

use claude_tools::ToolServer;
use claude_tools::include_skill;
use claude_tools::skills::Skill;

#[test]
fn include_skill_embeds_the_directory_as_on_disk() {
    let server = ToolServer::new("interop", "1.0.0")
        .with_skill(include_skill!("skills/loud-greeting"))
        .unwrap();
    let embedded = &server.skills()[0];
    assert_eq!(embedded.name(), "loud-greeting");
    assert_eq!(embedded.uri(), "skill://loud-greeting/SKILL.md");
    let paths: Vec<&str> = embedded.files().iter().map(|file| file.path()).collect();
    assert_eq!(paths, ["SKILL.md", "reference/style.md"]);

    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("skills/loud-greeting");
    let read = Skill::from_dir(&dir).unwrap();
    for (embedded, read) in embedded.files().iter().zip(read.files()) {
        assert_eq!(embedded.uri(), read.uri());
        assert_eq!(embedded.digest(), read.digest());
        assert_eq!(
            embedded.bytes(),
            std::fs::read(dir.join(read.path())).unwrap()
        );
    }
    assert_eq!(embedded.front_matter(), read.front_matter());
}
