# Installation layout and the Debian package (`cpack -G DEB` in the build folder builds
# netsmith_<version>_amd64.deb): both executables, the sample projects, the documentation, the icon, the desktop
# file, AppStream metadata, the MIME type of .nsproj files and the netsmith-cli man page.
# Depends is computed by dpkg-shlibdeps from the executables' libraries, plus what they run.
include(GNUInstallDirs)

set(NETSMITH_APP_ID org.netsmith.Netsmith)
set(NETSMITH_PACKAGING_DIR ${CMAKE_CURRENT_LIST_DIR})

install(TARGETS netsmith-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET netsmith)
  install(TARGETS netsmith RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/projects/ DESTINATION ${CMAKE_INSTALL_DATADIR}/netsmith/projects
        FILES_MATCHING PATTERN "*.nsproj")
install(FILES ${NETSMITH_PACKAGING_DIR}/${NETSMITH_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${NETSMITH_PACKAGING_DIR}/${NETSMITH_APP_ID}.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${NETSMITH_PACKAGING_DIR}/netsmith-project.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages)
install(FILES ${NETSMITH_PACKAGING_DIR}/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/netsmith)
# The documentation beside it: the console's Help menu opens gui.md there (Note [Help locations],
# gui/app/help_locations.h); the screenshots the pages show.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/netsmith
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png")

# Version-stamped files, and the man page compressed as Debian policy asks.
configure_file(${NETSMITH_PACKAGING_DIR}/${NETSMITH_APP_ID}.metainfo.xml
               ${CMAKE_BINARY_DIR}/packaging/${NETSMITH_APP_ID}.metainfo.xml @ONLY)
configure_file(${NETSMITH_PACKAGING_DIR}/netsmith-cli.1.in ${CMAKE_BINARY_DIR}/packaging/netsmith-cli.1 @ONLY)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/packaging/netsmith-cli.1.gz
                   COMMAND gzip -9nf -k ${CMAKE_BINARY_DIR}/packaging/netsmith-cli.1
                   DEPENDS ${CMAKE_BINARY_DIR}/packaging/netsmith-cli.1)
add_custom_target(netsmith_man_page ALL DEPENDS ${CMAKE_BINARY_DIR}/packaging/netsmith-cli.1.gz)
install(FILES ${CMAKE_BINARY_DIR}/packaging/${NETSMITH_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${CMAKE_BINARY_DIR}/packaging/netsmith-cli.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

set(CPACK_PACKAGE_NAME netsmith)
set(CPACK_PACKAGE_VENDOR "Netsmith")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "neural network training console (GUI and command-line engine)")
set(CPACK_PACKAGE_DESCRIPTION
    "Netsmith draws neural networks as graphs of layer blocks and trains them data-parallel on several GPUs or CPU workers, with live learning curves, evaluation, inference and ONNX export. netsmith-cli is the engine and command line; netsmith is the Qt desktop console.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # netsmith_<version>_amd64.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Netsmith developers <netsmith@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Beyond linked libraries: the sample projects read Debian's Fashion-MNIST (recommended, not
# required: any dataset works); python3-onnx checks exported models.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "dataset-fashion-mnist")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-onnx")
set(CPACK_GENERATOR DEB)
include(CPack)
