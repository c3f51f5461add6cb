//! `resolve_settings` on temporary folders (HOME, the project and the managed directory all
//! overridden): the CLI's tier order, lists merged without duplicates, the provenance of each
//! key, the managed file with its drop-ins, server-managed settings taking the managed tier,
//! `setting_sources`, and a malformed file named in a typed error.

use std::path::{Path, PathBuf};

use claude_tools_runtime::options::SettingSource;
use claude_tools_runtime::settings::{
    PolicyOrigin, ResolveSettings, ResolveSettingsError, ResolvedSettingSource, Settings,
    resolve_settings,
};
use serde_json::{Value, json};

/// A home, a project folder and a managed directory under one temporary root, removed on drop.
struct Place {
    root: PathBuf,
}

impl Place {
    fn new(test: &str) -> Place {
        let root = std::env::temp_dir().join(format!("ct-resolve-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        Place { root }
    }

    fn write(&self, relative: &str, json: &Value) -> PathBuf {
        self.write_text(relative, &json.to_string())
    }

    fn write_text(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    /// Reads with HOME, the project and the managed directory here.
    fn options(&self) -> ResolveSettings {
        ResolveSettings::new()
            .home(self.path("home"))
            .cwd(self.path("work"))
            .managed_dir(self.path("etc"))
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn shown(path: &Path) -> Option<String> {
    Some(path.display().to_string())
}

#[test]
fn the_tiers_merge_in_the_cli_order_and_each_key_names_its_tier() {
    let place = Place::new("order");
    let user = place.write(
        "home/.claude/settings.json",
        &json!({"model": "user-model", "permissions": {"allow": ["Read", "Bash(ls)"]},
                "env": {"A": "user", "B": "user"}, "spinnerTipsEnabled": false}),
    );
    let project = place.write(
        "work/.claude/settings.json",
        &json!({"model": "project-model", "permissions": {"allow": ["Bash(ls)", "Edit"]},
                "env": {"B": "project"}}),
    );
    let local = place.write(
        "work/.claude/settings.local.json",
        &json!({"env": {"C": "local"}}),
    );
    let managed = place.write(
        "etc/managed-settings.json",
        &json!({"permissions": {"deny": ["WebFetch"]}}),
    );
    let resolved = resolve_settings(
        &place
            .options()
            .flag_settings(Settings::new().model("flag-model")),
    )
    .unwrap();

    let effective = &resolved.effective;
    assert_eq!(effective.model.as_deref(), Some("flag-model"));
    let permissions = effective.permissions.as_ref().unwrap();
    assert_eq!(
        permissions.allow.as_deref(),
        Some(&["Read".to_owned(), "Bash(ls)".to_owned(), "Edit".to_owned()][..])
    );
    assert_eq!(
        permissions.deny.as_deref(),
        Some(&["WebFetch".to_owned()][..])
    );
    let env = effective.env.as_ref().unwrap();
    assert_eq!(
        env.iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect::<Vec<_>>(),
        [("A", "user"), ("B", "project"), ("C", "local")]
    );
    // A key this library does not type is merged and kept.
    assert_eq!(effective.extra["spinnerTipsEnabled"], false);

    let tiers: Vec<_> = resolved.sources.iter().map(|s| s.source.clone()).collect();
    assert_eq!(
        tiers,
        [
            ResolvedSettingSource::User,
            ResolvedSettingSource::Project,
            ResolvedSettingSource::Local,
            ResolvedSettingSource::Flag,
            ResolvedSettingSource::Managed,
        ]
    );
    assert_eq!(resolved.sources[0].path, shown(&user));
    assert_eq!(resolved.sources[2].path, shown(&local));

    let provenance = &resolved.provenance;
    assert_eq!(provenance["model"].source, ResolvedSettingSource::Flag);
    assert_eq!(provenance["model"].path, None);
    assert_eq!(provenance["env"].source, ResolvedSettingSource::Local);
    assert_eq!(provenance["spinnerTipsEnabled"].path, shown(&user));
    assert_eq!(
        provenance["permissions"].source,
        ResolvedSettingSource::Managed
    );
    assert_eq!(provenance["permissions"].path, shown(&managed));
    assert_eq!(
        provenance["permissions"].policy_origin,
        Some(PolicyOrigin::File)
    );
    assert!(resolved.sources.iter().any(|s| s.path == shown(&project)));
}

#[test]
fn the_managed_tier_is_the_file_with_its_drop_ins_or_server_managed_settings() {
    let place = Place::new("managed");
    place.write(
        "etc/managed-settings.json",
        &json!({"model": "base", "permissions": {"deny": ["WebFetch"]}}),
    );
    place.write(
        "etc/managed-settings.d/20-later.json",
        &json!({"model": "twenty", "permissions": {"deny": ["Bash(curl *)"]}}),
    );
    place.write(
        "etc/managed-settings.d/10-first.json",
        &json!({"model": "ten"}),
    );
    // Hidden files and other extensions are not drop-ins.
    place.write(
        "etc/managed-settings.d/.30-hidden.json",
        &json!({"model": "hidden"}),
    );
    place.write_text("etc/managed-settings.d/40-notes.txt", "not json");

    let resolved = resolve_settings(&place.options()).unwrap();
    assert_eq!(resolved.effective.model.as_deref(), Some("twenty"));
    assert_eq!(
        resolved.effective.permissions.unwrap().deny,
        Some(vec!["WebFetch".to_owned(), "Bash(curl *)".to_owned()])
    );

    // Server-managed settings are the managed tier: the files are not read beside them.
    let remote = Settings::new().model("remote");
    let resolved = resolve_settings(&place.options().server_managed_settings(remote)).unwrap();
    assert_eq!(resolved.effective.model.as_deref(), Some("remote"));
    assert!(resolved.effective.permissions.is_none());
    assert_eq!(
        resolved.provenance["model"].policy_origin,
        Some(PolicyOrigin::Remote)
    );
}

#[test]
fn setting_sources_leave_out_the_file_tiers_but_not_the_managed_one() {
    let place = Place::new("sources");
    place.write("home/.claude/settings.json", &json!({"model": "user"}));
    place.write("work/.claude/settings.json", &json!({"model": "project"}));
    place.write(
        "etc/managed-settings.json",
        &json!({"apiKeyHelper": "/bin/key"}),
    );

    let resolved = resolve_settings(&place.options().setting_sources([])).unwrap();
    assert_eq!(resolved.effective.model, None);
    assert_eq!(
        resolved.effective.api_key_helper.as_deref(),
        Some("/bin/key")
    );

    let resolved =
        resolve_settings(&place.options().setting_sources([SettingSource::User])).unwrap();
    assert_eq!(resolved.effective.model.as_deref(), Some("user"));

    // CLAUDE_CONFIG_DIR's place, given explicitly, holds the user's settings.
    place.write("config/settings.json", &json!({"model": "config-dir"}));
    let resolved = resolve_settings(
        &place
            .options()
            .config_dir(place.path("config"))
            .setting_sources([SettingSource::User]),
    )
    .unwrap();
    assert_eq!(resolved.effective.model.as_deref(), Some("config-dir"));
}

#[test]
fn a_malformed_file_is_a_typed_error_naming_it() {
    let place = Place::new("malformed");
    let project = place.write_text("work/.claude/settings.json", "{\"model\": ");
    match resolve_settings(&place.options()) {
        Err(ResolveSettingsError::Malformed { path, .. }) => assert_eq!(path, project),
        other => panic!("{other:?}"),
    }

    let place = Place::new("wrong-type");
    let drop_in = place.write(
        "etc/managed-settings.d/10.json",
        &json!({"permissions": {"allow": "Bash"}}),
    );
    match resolve_settings(&place.options()) {
        Err(ResolveSettingsError::Malformed { path, error }) => {
            assert_eq!(path, drop_in);
            assert_eq!(error.path, "permissions.allow");
        }
        other => panic!("{other:?}"),
    }

    // No file at all is no error: nothing is set.
    let place = Place::new("empty");
    let resolved = resolve_settings(&place.options()).unwrap();
    assert!(resolved.sources.is_empty());
    assert_eq!(resolved.effective, Settings::new());
}
