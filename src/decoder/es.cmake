# ffdvb_es: the elementary-stream decoding layer (es.h), included from this directory's
# CMakeLists.txt. libavcodec parsers/decoders, libswresample for audio, libavfilter (bwdif).
foreach(lib avcodec avutil swresample avfilter swscale)
  string(TOUPPER ${lib} var)
  if(NOT TARGET PkgConfig::${var})
    pkg_check_modules(${var} REQUIRED IMPORTED_TARGET GLOBAL lib${lib}) # GLOBAL: ffdvbd-asan links them too
  endif()
endforeach()

add_library(ffdvb_es STATIC
  ${CMAKE_CURRENT_SOURCE_DIR}/es.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_audio.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_codec.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_deint.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_detect.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_lpcm.c
  ${CMAKE_CURRENT_SOURCE_DIR}/es_video.c)
target_include_directories(ffdvb_es
  PUBLIC ${CMAKE_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(ffdvb_es PUBLIC ffdvb_demux PkgConfig::AVCODEC PkgConfig::AVUTIL
  PkgConfig::SWRESAMPLE PkgConfig::AVFILTER PkgConfig::SWSCALE m)
