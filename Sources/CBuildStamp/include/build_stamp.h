#ifndef PLAN_REGEN_BUILD_STAMP_H
#define PLAN_REGEN_BUILD_STAMP_H

/// The commit this binary was built from, as the build was told (Package.swift reads
/// PLAN_REGEN_COMMIT; deploy/build-release.sh and the Dockerfile set it), else empty.
extern const char *const plan_regen_build_commit;

#endif
