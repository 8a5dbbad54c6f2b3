# SPDX-License-Identifier: GPL-2.0-or-later
# ffdvb_es: the elementary-stream decoding layer (es.h), included from this directory's
# CMakeLists.txt. libavcodec parsers/decoders, libswresample for audio, libavfilter (bwdif),
# libavformat's spdif muxer (passthrough).
# GLOBAL imported targets: src/CMakeLists.txt (ffdvbd-asan) and tests/unit link them too.
foreach(_es_lib avcodec avformat avutil swresample avfilter swscale)
  string(TOUPPER ${_es_lib} _es_var)
  if(NOT TARGET PkgConfig::${_es_var})
    pkg_check_modules(${_es_var} REQUIRED IMPORTED_TARGET GLOBAL lib${_es_lib})
  endif()
endforeach()
unset(_es_lib)
unset(_es_var)
find_package(Threads REQUIRED)

add_library(ffdvb_es STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/es.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_audio.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_codec.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_deint.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_detect.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_lpcm.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_spdif.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_video.c)
target_include_directories(ffdvb_es
  PUBLIC ${CMAKE_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(ffdvb_es PUBLIC ffdvb_log ffdvb_pes PkgConfig::AVCODEC PkgConfig::AVUTIL
  PkgConfig::AVFORMAT PkgConfig::SWRESAMPLE PkgConfig::AVFILTER PkgConfig::SWSCALE Threads::Threads m)
