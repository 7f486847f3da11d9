%% error_logger: OTP's older logging API, which OTP 25 passes to logger
%% (written from its documentation): error_msg and error_report at level
%% error, warning_* at warning, info_* at notice with an INFO REPORT
%% header, printed by logger's default handler (on stderr here). Report
%% handlers cannot be added.
-module(error_logger).
-export([error_msg/1, error_msg/2, format/2, error_report/1, error_report/2,
         warning_msg/1, warning_msg/2, warning_report/1, warning_report/2,
         info_msg/1, info_msg/2, info_report/1, info_report/2,
         warning_map/0, add_report_handler/1, add_report_handler/2,
         delete_report_handler/1, tty/1, logfile/1]).

error_msg(Format) -> error_msg(Format, []).
error_msg(Format, Args) -> msg(error, error, Format, Args).
format(Format, Args) -> error_msg(Format, Args).

error_report(Report) -> report(error, error_report, Report).
error_report(_Type, Report) -> report(error, error_report, Report).

warning_msg(Format) -> warning_msg(Format, []).
warning_msg(Format, Args) -> msg(warning, warning_msg, Format, Args).
warning_report(Report) -> report(warning, warning_report, Report).
warning_report(_Type, Report) -> report(warning, warning_report, Report).

info_msg(Format) -> info_msg(Format, []).
info_msg(Format, Args) -> msg(notice, info_msg, Format, Args).
info_report(Report) -> report(notice, info_report, Report).
info_report(_Type, Report) -> report(notice, info_report, Report).

warning_map() -> warning.

msg(Level, Tag, Format, Args) ->
    log(Level, Tag, {Format, Args}).

report(Level, Tag, Report) ->
    log(Level, Tag, {report, Report}).

log(Level, Tag, Msg) ->
    case logger:allow(Level, ?MODULE) of
        true ->
            logger:print(Level, Msg, #{error_logger => #{tag => Tag}},
                         undefined);
        false -> ok
    end.

add_report_handler(_) -> no_handlers().
add_report_handler(_, _) -> no_handlers().
delete_report_handler(_) -> no_handlers().
tty(_) -> no_handlers().
logfile(_) -> no_handlers().

no_handlers() ->
    trace_prelude:unsupported("error_logger report handlers and log files").
